// Drives the router with the official `openai` npm client: a tool-calling conversation and a
// reasoning request, each unary and streamed. Prints what came back as JSON.
// Usage: node openai-tools.js BASE_URL MODEL   (NODE_PATH must reach node_modules/openai)
const { OpenAI } = require('openai');

const tools = [{
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
}];

/** A stream read back into one message: content, reasoning and tool calls merged by index. */
async function collect(stream) {
  const message = { content: '', reasoning_content: '', tool_calls: [] };
  let finishReason = null;
  for await (const chunk of stream) {
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      message.content += delta.content ?? '';
      message.reasoning_content += delta.reasoning_content ?? '';
      for (const call of delta.tool_calls ?? []) {
        const known = message.tool_calls[call.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
        known.id += call.id ?? '';
        known.function.name += call.function?.name ?? '';
        known.function.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  }
  return { message, finishReason };
}

async function main() {
  const [baseURL, model] = process.argv.slice(2);
  const client = new OpenAI({ baseURL, apiKey: 'not-used', maxRetries: 0 });
  const ask = [{ role: 'user', content: 'What is the weather in Paris?' }];

  const toolUnary = await client.chat.completions.create({ model, messages: ask, tools });
  const toolStreamed = await collect(
    await client.chat.completions.create({ model, messages: ask, tools, stream: true }));

  // the client answers the call and asks again: the tool result goes back through the template
  const call = toolUnary.choices[0].message.tool_calls[0];
  const followUp = await client.chat.completions.create({
    model,
    tools,
    messages: [...ask, toolUnary.choices[0].message,
      { role: 'tool', tool_call_id: call.id, content: '{"temperature": 22}' }],
  });

  const think = [{ role: 'user', content: 'Think first: is 17 prime?' }];
  const reasoningUnary = await client.chat.completions.create({ model, messages: think });
  const reasoningStreamed = await collect(
    await client.chat.completions.create({ model, messages: think, stream: true }));

  console.log(JSON.stringify({
    toolUnary: { message: toolUnary.choices[0].message, finishReason: toolUnary.choices[0].finish_reason },
    toolStreamed,
    followUp: { message: followUp.choices[0].message, finishReason: followUp.choices[0].finish_reason },
    reasoningUnary: { message: reasoningUnary.choices[0].message, finishReason: reasoningUnary.choices[0].finish_reason },
    reasoningStreamed,
  }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
