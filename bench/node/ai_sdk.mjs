// ai_sdk.mjs — the Vercel AI SDK (`ai` + `@ai-sdk/openai`, Chat Completions)
// consuming the bench's OpenAI stream from tests/fake-provider; prints CPU
// time (user + system) of this process per event, after one warm-up stream.
// Usage: node ai_sdk.mjs PORT ROUNDS EVENTS_PER_STREAM
import { streamText } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';

const [port, rounds = 5, perStream] = process.argv.slice(2).map(Number);
const openai = createOpenAI({ apiKey: 'sk-bench', baseURL: `http://127.0.0.1:${port}/v1` });
async function once() {
  const result = streamText({ model: openai.chat('gpt-4o'), prompt: 'bench' });
  let text = 0;
  for await (const t of result.textStream) text += t.length;
  return text;
}
await once();
const t0 = process.cpuUsage();
let text = 0;
for (let r = 0; r < rounds; r++) text += await once();
const u = process.cpuUsage(t0);
// textStream merges nothing away but has no per-event count: the stream's own.
console.log(`ai-sdk ${perStream} events/stream, ${text / rounds} chars: ` +
  `${((u.user + u.system) / (perStream * rounds)).toFixed(2)} us CPU/event`);
