// Asks the router for one chat completion with the official `openai` npm client and the API key
// given, and prints whether it was let in as JSON: {"ok":true,"content":...} or
// {"ok":false,"status":401,"code":"invalid_api_key","type":...}.
// Usage: node openai-auth.js BASE_URL MODEL API_KEY   (NODE_PATH must reach node_modules/openai)
const { OpenAI } = require('openai');

async function main() {
  const [baseURL, model, apiKey] = process.argv.slice(2);
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  try {
    const reply = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_tokens: 8,
    });
    console.log(JSON.stringify({ ok: true, content: reply.choices[0].message.content }));
  } catch (e) {
    if (!(e instanceof OpenAI.APIError)) throw e;
    console.log(JSON.stringify({ ok: false, status: e.status, code: e.code, type: e.type }));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
