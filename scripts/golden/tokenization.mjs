#!/usr/bin/env node
// Writes the tokenization goldens: token ids from an independent reference, transformers.js
// (the npm package @huggingface/transformers, a JavaScript port of Hugging Face's tokenizers),
// for the model folders that scripts/fetch-test-models caches.
//
// Install the pinned reference outside the repo (--ignore-scripts: only the tokenizer code is
// used, the ONNX runtime's install script is not needed), then run from the repo root:
//
//     mkdir -p /tmp/tokref && (cd /tmp/tokref && npm init -y >/dev/null &&
//         npm install --ignore-scripts @huggingface/transformers@4.3.1)
//     scripts/fetch-test-models
//     TOKREF=/tmp/tokref node scripts/golden/tokenization.mjs [MODELS_DIR]
//
// TOKREF (default /tmp/tokref) is the folder holding node_modules/@huggingface/transformers; the
// script refuses any other version than the pinned one. MODELS_DIR defaults to $KVROUTER_TEST_MODELS, else
// ~/.cache/kvrouter/models. Models load from disk only (env.allowRemoteModels = false): each
// folder's tokenizer.json + tokenizer_config.json.
//
// Input:  kvrouter-core/src/test/resources/golden/tokenization/cases.json
// Output: kvrouter-core/src/test/resources/golden/tokenization/{model}.json, per case
//   ids               encode(text, {add_special_tokens: false})
//   ids_with_special  encode(text, {add_special_tokens: true})   (shows BOS handling)
//   decode            decode(ids, {skip_special_tokens: false, clean_up_tokenization_spaces: false})
// and for a {repeat} case only count / first16 / last16 of both id lists (keeps fixtures small).
// Cases listed in overrides.json (beside cases.json) are not taken from transformers.js: their
// ids/decode come from that file, and transformers.js's ids are kept beside them (see README.md).
// Same inputs give byte-identical files.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PINNED = '4.3.1';
const MODELS = ['qwen3', 'qwen2_5', 'llama3', 'llama3_1', 'llama3_2', 'deepseek_v3', 'gemma3',
  'gptoss', 'mistral_nemo'];

const tokref = process.env.TOKREF || '/tmp/tokref';
const require = createRequire(path.join(tokref, 'package.json'));
const pkgVersion = (name) => JSON.parse(
  fs.readFileSync(path.join(tokref, 'node_modules', name, 'package.json'), 'utf8')).version;
const pkgJson = { version: pkgVersion('@huggingface/transformers') };
if (pkgJson.version !== PINNED) {
  throw new Error(`@huggingface/transformers ${pkgJson.version} installed in ${tokref}, want ${PINNED}`);
}
const tokenizersVersion = pkgVersion('@huggingface/tokenizers');
const { AutoTokenizer, env } = await import(
  pathToFileURL(require.resolve('@huggingface/transformers')).href);

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const goldenDir = path.join(repo, 'kvrouter-core/src/test/resources/golden/tokenization');
const modelsDir = process.argv[2] || process.env.KVROUTER_TEST_MODELS
  || path.join(os.homedir(), '.cache/kvrouter/models');

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = modelsDir + path.sep;
env.useBrowserCache = false;
env.useFSCache = false;

const cases = JSON.parse(fs.readFileSync(path.join(goldenDir, 'cases.json'), 'utf8')).cases;
// {model: {case: reason}}: goldens that are NOT transformers.js output (see README.md).
const OVERRIDES = JSON.parse(fs.readFileSync(path.join(goldenDir, 'overrides.json'), 'utf8'));

const textOf = (c) => (c.repeat ? c.repeat.text.repeat(c.repeat.times) : c.text);

for (const model of MODELS) {
  const tok = await AutoTokenizer.from_pretrained(model);
  const config = JSON.parse(fs.readFileSync(path.join(modelsDir, model, 'tokenizer_config.json'), 'utf8'));
  const out = {
    _generated_by: `scripts/golden/tokenization.mjs with @huggingface/transformers ${PINNED} ` +
      `(@huggingface/tokenizers ${tokenizersVersion})`,
    model,
    tokenizer_class: tokenizerClass(tok),
    bos_token: tokenString(config.bos_token),
    add_bos_token: config.add_bos_token ?? null,
    cases: {},
  };
  for (const c of cases) {
    const text = textOf(c);
    const ids = Array.from(tok.encode(text, { add_special_tokens: false }));
    const withSpecial = Array.from(tok.encode(text, { add_special_tokens: true }));
    const entry = {};
    const override = OVERRIDES[model]?.[c.name];
    if (override) {
      // Keep the transformers.js answer as evidence; the golden itself comes from the override.
      entry.overridden = override.reason;
      entry.transformers_js_ids = ids;
    }
    if (c.repeat) {
      entry.count = ids.length;
      entry.first16 = ids.slice(0, 16);
      entry.last16 = ids.slice(-16);
      entry.count_with_special = withSpecial.length;
      entry.first16_with_special = withSpecial.slice(0, 16);
      const decoded = tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
      entry.decode_equals_text = decoded === text;
    } else {
      entry.ids = override ? override.ids : ids;
      entry.ids_with_special = withSpecial;
      // transformers.js refuses to decode an empty list; the Rust library returns "".
      entry.decode = override ? override.decode : ids.length === 0 ? '' : tok.decode(ids, {
        skip_special_tokens: false,
        clean_up_tokenization_spaces: false,
      });
    }
    out.cases[c.name] = entry;
  }
  // One id list per line. A JSON string cannot hold a raw newline, so this only touches arrays.
  const json = JSON.stringify(out, null, 1)
    .replace(/\[\n\s*(-?\d+(?:,\n\s*-?\d+)*)\n\s*\]/g, (_, xs) => `[${xs.replace(/\s+/g, '')}]`);
  fs.writeFileSync(path.join(goldenDir, `${model}.json`), json + '\n');
  console.log(`${model}: ${cases.length} cases`);
}

function tokenString(t) {
  if (t == null) return null;
  return typeof t === 'string' ? t : t.content;
}

function tokenizerClass(tok) {
  return tok.constructor?.name ?? null;
}
