#!/usr/bin/env node
// Writes the detokenization goldens: full decodes, with and without skip_special_tokens, of id
// sequences chosen to exercise decoding, computed by an independent reference, transformers.js
// (the npm package @huggingface/transformers, a JavaScript port of Hugging Face's tokenizers),
// for the model folders that scripts/fetch-test-models caches.
//
// Install the pinned reference outside the repo (as for tokenization.mjs), then run from the repo
// root:
//
//     mkdir -p /tmp/tokref && (cd /tmp/tokref && npm init -y >/dev/null &&
//         npm install --ignore-scripts @huggingface/transformers@4.3.1)
//     scripts/fetch-test-models
//     TOKREF=/tmp/tokref node scripts/golden/detokenization.mjs [MODELS_DIR]
//
// TOKREF (default /tmp/tokref) is the folder holding node_modules/@huggingface/transformers; the
// script refuses any other version than the pinned one. MODELS_DIR defaults to
// $KVROUTER_TEST_MODELS, else ~/.cache/kvrouter/models. Models load from disk only.
//
// Inputs:  kvrouter-core/src/test/resources/golden/tokenization/cases.json (texts whose ids are decoded),
//          kvrouter-core/src/test/resources/golden/chat-templates/{model}/multi_turn_ending_assistant.txt
//          (a rendered chat, for real chat markers), and
//          kvrouter-core/src/test/resources/golden/detokenization/overrides.json.
// Output:  kvrouter-core/src/test/resources/golden/detokenization/{model}.json, per sequence
//   ids                  the token ids
//   decode               decode(ids, {skip_special_tokens: false, clean_up_tokenization_spaces: false})
//   decode_skip_special  decode(ids, {skip_special_tokens: true,  clean_up_tokenization_spaces: false})
//   decode_cleaned_up    only where the model's tokenizer_config.json enables
//                        clean_up_tokenization_spaces and it would change `decode`: what
//                        transformers' default decode gives (NOT the golden; see README.md)
// Sequences listed in overrides.json are not taken from transformers.js: their decode and
// decode_skip_special come from that file, and transformers.js's answers are kept beside them.
// Clean-up is off because the engines (vLLM's fast detokenizer, Dynamo) decode with the Rust
// library, which has no clean-up step (README.md). Same inputs give byte-identical files.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PINNED = '4.3.1';
const MODELS = ['qwen3', 'qwen2_5', 'llama3', 'llama3_1', 'llama3_2', 'deepseek_v3', 'gemma3',
  'gptoss', 'mistral_nemo'];
// The long tokenization case (140,001 ids) is left out: a full incremental decode of it per
// chunking and model would dominate the test run; HfTokenizerTest and IncrementalDetokenizerTest
// cover long outputs.
const SKIPPED_TEXT_CASES = new Set(['long_hello_x140000']);
const RANDOM_SEQUENCES = 8;
const RANDOM_LENGTH = 40;

const tokref = process.env.TOKREF || '/tmp/tokref';
const require = createRequire(path.join(tokref, 'package.json'));
const pkgVersion = (name) => JSON.parse(
  fs.readFileSync(path.join(tokref, 'node_modules', name, 'package.json'), 'utf8')).version;
if (pkgVersion('@huggingface/transformers') !== PINNED) {
  throw new Error(`@huggingface/transformers ${pkgVersion('@huggingface/transformers')} ` +
    `installed in ${tokref}, want ${PINNED}`);
}
const tokenizersVersion = pkgVersion('@huggingface/tokenizers');
const { AutoTokenizer, env } = await import(
  pathToFileURL(require.resolve('@huggingface/transformers')).href);

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const goldens = path.join(repo, 'kvrouter-core/src/test/resources/golden');
const goldenDir = path.join(goldens, 'detokenization');
const modelsDir = process.argv[2] || process.env.KVROUTER_TEST_MODELS
  || path.join(os.homedir(), '.cache/kvrouter/models');

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = modelsDir + path.sep;
env.useBrowserCache = false;
env.useFSCache = false;

const textCases = JSON.parse(fs.readFileSync(path.join(goldens, 'tokenization/cases.json'), 'utf8'))
  .cases.filter((c) => !SKIPPED_TEXT_CASES.has(c.name));
// {model: {sequence: {decode, decode_skip_special, reason}}}: goldens that are NOT
// transformers.js output (see README.md).
const OVERRIDES = JSON.parse(fs.readFileSync(path.join(goldenDir, 'overrides.json'), 'utf8'));

// An assistant reply as a model generates it: reasoning tags (one added token each in qwen3),
// emoji, CJK, a space before punctuation (what clean-up would change).
const REPLY = '<think>\nThe user wants a joke 🤔. Keep it short , light.\n</think>\n\n' +
  'Why did the 🐔 cross the road? 为了到另一边 ! It\'s a classic .';
// Characters given as raw UTF-8 bytes: 2, 3 and 4 bytes long, astral ones no vocabulary has whole.
const SPLIT_CHARS = ['é', '中', '😀', '𓀀', '𝔘', '🦜', '𠀀'];

fs.mkdirSync(goldenDir, { recursive: true });
for (const model of MODELS) {
  const tok = await AutoTokenizer.from_pretrained(model);
  const config = JSON.parse(
    fs.readFileSync(path.join(modelsDir, model, 'tokenizer_config.json'), 'utf8'));
  const cleanupConfigured = config.clean_up_tokenization_spaces ?? null;
  const sequences = buildSequences(model, tok, config);
  const out = {
    _generated_by: `scripts/golden/detokenization.mjs with @huggingface/transformers ${PINNED} ` +
      `(@huggingface/tokenizers ${tokenizersVersion})`,
    model,
    clean_up_tokenization_spaces_in_config: cleanupConfigured,
    sequences: {},
  };
  for (const [name, ids] of sequences) {
    const decode = decodeOf(tok, ids, false);
    const decodeSkip = decodeOf(tok, ids, true);
    const entry = { ids };
    const override = OVERRIDES[model]?.[name];
    if (override) {
      // Keep the transformers.js answer as evidence; the golden itself comes from the override.
      entry.overridden = override.reason;
      entry.transformers_js_decode = decode;
      entry.transformers_js_decode_skip_special = decodeSkip;
      entry.decode = override.decode;
      entry.decode_skip_special = override.decode_skip_special;
    } else {
      entry.decode = decode;
      entry.decode_skip_special = decodeSkip;
    }
    if (cleanupConfigured === true && ids.length > 0) {
      const cleaned = tok.decode(ids, { skip_special_tokens: false });
      if (cleaned !== decode) entry.decode_cleaned_up = cleaned;
    }
    out.sequences[name] = entry;
  }
  for (const name of Object.keys(OVERRIDES[model] ?? {})) {
    if (!(name in out.sequences)) throw new Error(`override for unknown sequence ${model} ${name}`);
  }
  // One id list per line. A JSON string cannot hold a raw newline, so this only touches arrays.
  const json = JSON.stringify(out, null, 1)
    .replace(/\[\n\s*(-?\d+(?:,\n\s*-?\d+)*)\n\s*\]/g, (_, xs) => `[${xs.replace(/\s+/g, '')}]`);
  fs.writeFileSync(path.join(goldenDir, `${model}.json`), json + '\n');
  console.log(`${model}: ${sequences.length} sequences`);
}

// transformers.js refuses to decode an empty list; the Rust library returns "".
function decodeOf(tok, ids, skip) {
  if (ids.length === 0) return '';
  return tok.decode(ids, { skip_special_tokens: skip, clean_up_tokenization_spaces: false });
}

/** [name, ids] pairs, in a fixed order. */
function buildSequences(model, tok, config) {
  const t = tok._tokenizer;
  const encode = (text) => Array.from(tok.encode(text, { add_special_tokens: false }));
  const idOf = (token) => {
    const id = t.model.tokens_to_ids.get(token);
    if (id === undefined) throw new Error(`${model} has no token ${JSON.stringify(token)}`);
    return id;
  };
  const configToken = (key) => {
    const v = config[key];
    return v == null ? null : idOf(typeof v === 'string' ? v : v.content);
  };
  const bos = configToken('bos_token');
  const eos = configToken('eos_token');
  const byteId = byteTokens(model, t);
  const bytesOf = (s) => Array.from(Buffer.from(s, 'utf8'), byteId);
  const added = t.added_tokens.slice().sort((a, b) => a.id - b.id);
  const specials = added.filter((a) => a.special).map((a) => a.id);
  const nonSpecialAdded = added.filter((a) => !a.special).map((a) => a.id);

  const seqs = [];
  const add = (name, ids) => seqs.push([name, ids]);

  // 1. The ids of the tokenization cases.
  for (const c of textCases) add(`text:${c.name}`, encode(c.text));
  add('text:rare_characters', encode('𓀀𓁐𓂀 𠀀𠀁 🫠🪿 ꙮ ⸻ 𝕄𝕒𝕥𝕙'));

  // 2. Special and added tokens.
  const chat = fs.readFileSync(
    path.join(goldens, 'chat-templates', model, 'multi_turn_ending_assistant.txt'), 'utf8');
  add('special:chat_then_reply_then_eos', [...encode(chat), ...encode(REPLY), eos]);
  add('special:bos_text_eos', [...(bos === null ? [] : [bos]), ...encode('Hello world.'), eos]);
  add('special:eos_only', [eos]);
  add('special:adjacent_specials', [eos, eos, ...specials.slice(0, 12), eos]);
  // A special token between text tokens, with and without spaces beside it.
  add('special:between_words', [...encode('left'), eos, ...encode(' right'), eos, ...encode('x')]);
  if (nonSpecialAdded.length > 0) {
    // Added tokens that are not special (qwen3's <think>, gemma3's <unused0>): kept when skipping.
    add('added:non_special', interleave(nonSpecialAdded.slice(0, 10), encode(' ok')));
  }
  add('special:think_reply', encode(REPLY));

  // 3. Single-byte tokens: characters cut into their UTF-8 bytes.
  add('bytes:split_chars', [...encode('A'), ...SPLIT_CHARS.flatMap(bytesOf), ...encode('B')]);
  add('bytes:split_chars_between_words',
    SPLIT_CHARS.flatMap((c) => [...encode(' w'), ...bytesOf(c)]));
  add('bytes:incomplete_in_middle', [...encode('A'), ...bytesOf('😀').slice(0, 2), ...encode('B')]);
  add('bytes:incomplete_at_end', [...encode('ok'), ...bytesOf('中').slice(0, 2)]);
  add('bytes:lone_continuation', [...bytesOf('é').slice(1), ...encode('x')]);
  // skip_special_tokens drops the special token before the bytes are joined: one whole emoji.
  add('bytes:split_around_special',
    [...encode('A'), ...bytesOf('😀').slice(0, 2), eos, ...bytesOf('😀').slice(2), ...encode('B')]);

  // 4. Leading spaces (ByteLevel "Ġ", SentencePiece "▁").
  add('space:leading_word', encode(' Hello world'));
  add('space:after_special', [...(bos === null ? [eos] : [bos]), ...encode(' Hello')]);
  add('space:single_space_tokens', [...encode(' '), ...encode(' '), ...encode(' '), ...encode('a')]);
  add('space:before_punctuation', encode('Hello , world . It \'s fine ? Yes ! I \'m sure n\'t'));

  // 5. A deterministic pseudo-random sample of the whole vocabulary, special tokens included.
  const random = mulberry32(fnv1a(model));
  const vocabSize = t.model.vocab.length;
  for (let s = 0; s < RANDOM_SEQUENCES; s++) {
    const ids = [];
    for (let i = 0; i < RANDOM_LENGTH; i++) ids.push(Math.floor(random() * vocabSize));
    add(`random:vocab_${s}`, ids);
  }
  return seqs;
}

/** id of the token that is the single byte b: "<0xHH>" with byte fallback, else GPT-2's char. */
function byteTokens(model, t) {
  const chars = bytesToUnicode();
  const ids = [];
  for (let b = 0; b < 256; b++) {
    const hex = `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
    const id = t.model.tokens_to_ids.get(hex) ?? t.model.tokens_to_ids.get(chars[b]);
    if (id === undefined) throw new Error(`${model} has no token for byte ${b}`);
    ids.push(id);
  }
  return (b) => ids[b];
}

/** GPT-2's byte-to-character table that ByteLevel vocabularies are written in. */
function bytesToUnicode() {
  const printable = (b) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  const out = [];
  let next = 256;
  for (let b = 0; b < 256; b++) out.push(String.fromCodePoint(printable(b) ? b : next++));
  return out;
}

function interleave(ids, between) {
  return ids.flatMap((id) => [id, ...between]);
}

function fnv1a(s) {
  let h = 0x811c9dc5;
  for (const c of Buffer.from(s, 'utf8')) h = Math.imul(h ^ c, 0x01000193) >>> 0;
  return h;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
