// openai_sdk.mjs — the official `openai` SDK consuming the bench's OpenAI
// stream from tests/fake-provider; prints CPU time (user + system) of this
// process per event, after one warm-up stream. Usage: node openai_sdk.mjs PORT ROUNDS
import OpenAI from 'openai';

const [port, rounds = 5] = process.argv.slice(2).map(Number);
const client = new OpenAI({ apiKey: 'sk-bench', baseURL: `http://127.0.0.1:${port}/v1` });
async function once() {
  const stream = await client.chat.completions.create({
    model: 'gpt-4o', messages: [{ role: 'user', content: 'bench' }], stream: true });
  let events = 0, text = 0;
  for await (const chunk of stream) { events++; text += (chunk.choices[0]?.delta?.content ?? '').length; }
  return [events, text];
}
await once();
const t0 = process.cpuUsage();
let events = 0, text = 0;
for (let r = 0; r < rounds; r++) { const [e, t] = await once(); events += e; text += t; }
const u = process.cpuUsage(t0);
console.log(`openai ${events / rounds} events/stream, ${text / rounds} chars: ` +
  `${((u.user + u.system) / events).toFixed(2)} us CPU/event`);
