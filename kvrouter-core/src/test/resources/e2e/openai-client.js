// Drives the router with the official `openai` npm client and prints what came back as JSON.
// Usage: node openai-client.js BASE_URL MODEL   (NODE_PATH must reach node_modules/openai)
const { OpenAI } = require('openai');

async function main() {
  const [baseURL, model] = process.argv.slice(2);
  const client = new OpenAI({ baseURL, apiKey: 'not-used', maxRetries: 0 });
  const messages = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello from node.' },
  ];

  const unary = await client.chat.completions.create({ model, messages, max_tokens: 24 });

  let streamed = '';
  let chunks = 0;
  let finishReason = null;
  let usage = null;
  const stream = await client.chat.completions.create({
    model, messages, max_tokens: 24, stream: true, stream_options: { include_usage: true },
  });
  for await (const chunk of stream) {
    chunks++;
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      streamed += choice.delta.content ?? '';
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }

  const completion = await client.completions.create({ model, prompt: 'Once upon a time', max_tokens: 8 });

  let notFound = null;
  try {
    await client.chat.completions.create({ model: 'no-such-model', messages });
  } catch (e) {
    notFound = { status: e.status, type: e.error?.type ?? e.type, code: e.code ?? e.error?.code };
  }

  console.log(JSON.stringify({
    unary: {
      content: unary.choices[0].message.content,
      finishReason: unary.choices[0].finish_reason,
      usage: unary.usage,
      object: unary.object,
    },
    streamed: { content: streamed, chunks, finishReason, usage },
    completion: { text: completion.choices[0].text, usage: completion.usage },
    notFound,
  }));
}

main().catch((e) => { console.error(e); process.exit(1); });
