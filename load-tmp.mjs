import { getLlama, resolveChatWrapper, LlamaText } from "node-llama-cpp";
const t=Date.now();
const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
const model = await llama.loadModel({ modelPath: process.argv[2] });
console.log("train", model.trainContextSize, "load ms", Date.now()-t);
const wrapper = resolveChatWrapper(model);
console.log("wrapper", wrapper.constructor.name, wrapper.wrapperName);
const state = wrapper.generateContextState({ chatHistory: [{type:"system", text:"You are helpful."},{type:"user", text:"Hello world 日本"},{type:"model", response:[]}] });
const tokens = state.contextText.tokenize(model.tokenizer);
console.log("tokens", tokens.length, JSON.stringify(model.detokenize(tokens, true)));
console.log("stops", state.stopGenerationTriggers.map(s=>JSON.stringify(s.toJSON())));
const ctx = await model.createContext({ contextSize: 4096, sequences: 2, threads: Number(process.env.TH ?? 1), batchSize: 512 });
console.log("ctx", ctx.contextSize);
const seq = ctx.getSequence();
const out=[]; const t2=performance.now();
for await (const tok of seq.evaluate(tokens, { temperature: 0, seed: 42 })) { if (model.isEogToken(tok)) { out.push("EOG"); break;} out.push(tok); if (out.length>=Number(process.env.N ?? 50)) break; }
console.log("out", out.length, JSON.stringify(model.detokenize(out.filter(x=>x!=="EOG"))), (performance.now()-t2).toFixed(1), "ms");
await ctx.dispose(); await model.dispose(); await llama.dispose();
