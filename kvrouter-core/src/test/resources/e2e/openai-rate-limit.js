// Sends COUNT chat completions at once with the official `openai` npm client (no retries) and the
// API key given, and prints what came back as JSON: {"ok":N,"refused":[{"status":429,
// "rateLimitError":true,"code":...,"type":...,"retryAfter":"12"}...],"other":[...]}.
// Usage: node openai-rate-limit.js BASE_URL MODEL API_KEY COUNT   (NODE_PATH must reach openai)
const { OpenAI } = require('openai');

async function main() {
  const [baseURL, model, apiKey, count] = process.argv.slice(2);
  const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
  const one = () =>
    client.chat.completions
      .create({ model, messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 4 })
      .then(() => ({ ok: true }))
      .catch((e) => {
        if (!(e instanceof OpenAI.APIError)) throw e;
        return {
          ok: false,
          status: e.status,
          rateLimitError: e instanceof OpenAI.RateLimitError,
          code: e.code,
          type: e.type,
          retryAfter: e.headers?.get('retry-after') ?? null,
        };
      });
  const results = await Promise.all(Array.from({ length: Number(count) }, one));
  const refused = results.filter((r) => !r.ok && r.status === 429);
  console.log(
    JSON.stringify({
      ok: results.filter((r) => r.ok).length,
      refused,
      other: results.filter((r) => !r.ok && r.status !== 429),
    })
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
