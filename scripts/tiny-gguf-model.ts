// The tiny llama-architecture GGUF the embedded-canary tests load (about 180 KB): 2 layers,
// 32 dimensions, 4 heads, a SentencePiece-style vocabulary of the control tokens, the 256 byte
// tokens and the printable ASCII characters, and a ChatML chat template. Its weights are
// pseudo-random from a fixed seed, so the same options always give the same bytes (and SHA-256).
//
// It is not a language model and says nothing about detection. Its weights are random except for
// one planted pattern that makes its greedy reply predictable, so tests can tell a finished
// reply from a cut one: every token's embedding carries a large component along dimension 0,
// except the reply token's, which carries it along dimension 1; the output row of the reply token
// reads dimension 0 and the row of the end-of-turn token reads dimension 1. At temperature 0 the
// model therefore answers any prompt with the reply token and then ends its turn. With
// `reply: "endless"` the reply token also carries dimension 0, so the model repeats it until the
// reply budget runs out (for output-limit and deadline tests).

import { type GgufTensor, type GgufValue, writeGguf } from "./gguf-writer.js";

/** What can vary between tiny models. */
export interface TinyGgufOptions {
  /** PRNG seed of the weights (default 18). */
  readonly seed?: number;
  /** `llama.context_length`, the trained context the engine may use (default 32768). */
  readonly contextLength?: number;
  /** `short` (default): one reply token, then end of turn. `endless`: the reply token forever. */
  readonly reply?: "short" | "endless";
}

const N_EMBD = 32;
const N_LAYERS = 2;
const N_HEAD = 4;
const N_FF = 64;
/** The reply token's text. */
export const TINY_REPLY_TEXT = "Noted";

const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** GGUF token types of the SentencePiece vocabulary. */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, byte: 6 } as const;

interface Vocabulary {
  readonly tokens: string[];
  readonly types: number[];
  readonly scores: number[];
  readonly eos: number;
  readonly reply: number;
}

function vocabulary(): Vocabulary {
  const tokens: string[] = [];
  const types: number[] = [];
  const add = (text: string, type: number): number => {
    tokens.push(text);
    types.push(type);
    return tokens.length - 1;
  };
  add("<unk>", TOKEN_TYPE.unknown);
  add("<s>", TOKEN_TYPE.control);
  add("</s>", TOKEN_TYPE.control);
  add("<|im_start|>", TOKEN_TYPE.control);
  const eos = add("<|im_end|>", TOKEN_TYPE.control);
  for (let byte = 0; byte < 256; byte++) add(`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`, TOKEN_TYPE.byte);
  add("\u2581", TOKEN_TYPE.normal);
  for (let code = 0x21; code <= 0x7e; code++) add(String.fromCharCode(code), TOKEN_TYPE.normal);
  const reply = add(TINY_REPLY_TEXT, TOKEN_TYPE.normal);
  // Single characters score alike; the scores only order SentencePiece merges, and there are none.
  const scores = tokens.map((_, index) => (types[index] === TOKEN_TYPE.normal ? -1 : 0));
  return { tokens, types, scores, eos, reply };
}

/** mulberry32: a small, fixed PRNG, so the file's bytes depend on the seed alone. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number, count: number, scale: number): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const u = Math.max(random(), 1e-12);
    const v = random();
    out[i] = scale * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  return out;
}

const ones = (count: number): Float32Array => new Float32Array(count).fill(1);

/** The bytes of the tiny GGUF for `options` (deterministic). */
export function tinyGguf(options: TinyGgufOptions = {}): Buffer {
  const contextLength = options.contextLength ?? 32768;
  if (!Number.isSafeInteger(contextLength) || contextLength < 64) throw new Error("contextLength must be an integer of at least 64");
  const random = prng(options.seed ?? 18);
  const vocab = vocabulary();
  const nVocab = vocab.tokens.length;

  const embeddings = gaussian(random, N_EMBD * nVocab, 0.02);
  for (let token = 0; token < nVocab; token++) {
    const row = token * N_EMBD;
    if (token !== vocab.reply || options.reply === "endless") embeddings[row] = 10;
    if (token === vocab.reply) embeddings[row + 1] = 10;
  }
  const output = gaussian(random, N_EMBD * nVocab, 0.02);
  output.fill(0, vocab.reply * N_EMBD, (vocab.reply + 1) * N_EMBD);
  output[vocab.reply * N_EMBD] = 1;
  output.fill(0, vocab.eos * N_EMBD, (vocab.eos + 1) * N_EMBD);
  // In the endless variant the end-of-turn row stays zero, so the reply token always wins.
  if (options.reply !== "endless") output[vocab.eos * N_EMBD + 1] = 1;

  const tensors: GgufTensor[] = [
    { name: "token_embd.weight", dims: [N_EMBD, nVocab], data: embeddings },
    { name: "output_norm.weight", dims: [N_EMBD], data: ones(N_EMBD) },
    { name: "output.weight", dims: [N_EMBD, nVocab], data: output },
  ];
  for (let layer = 0; layer < N_LAYERS; layer++) {
    const blk = (name: string): string => `blk.${layer}.${name}.weight`;
    tensors.push(
      { name: blk("attn_norm"), dims: [N_EMBD], data: ones(N_EMBD) },
      { name: blk("attn_q"), dims: [N_EMBD, N_EMBD], data: gaussian(random, N_EMBD * N_EMBD, 0.02) },
      { name: blk("attn_k"), dims: [N_EMBD, N_EMBD], data: gaussian(random, N_EMBD * N_EMBD, 0.02) },
      { name: blk("attn_v"), dims: [N_EMBD, N_EMBD], data: gaussian(random, N_EMBD * N_EMBD, 0.02) },
      { name: blk("attn_output"), dims: [N_EMBD, N_EMBD], data: gaussian(random, N_EMBD * N_EMBD, 0.02) },
      { name: blk("ffn_norm"), dims: [N_EMBD], data: ones(N_EMBD) },
      { name: blk("ffn_gate"), dims: [N_EMBD, N_FF], data: gaussian(random, N_EMBD * N_FF, 0.02) },
      { name: blk("ffn_down"), dims: [N_FF, N_EMBD], data: gaussian(random, N_FF * N_EMBD, 0.02) },
      { name: blk("ffn_up"), dims: [N_EMBD, N_FF], data: gaussian(random, N_EMBD * N_FF, 0.02) },
    );
  }

  const u32 = (value: number): GgufValue => ({ type: "u32", value });
  const metadata = new Map<string, GgufValue>([
    ["general.architecture", { type: "string", value: "llama" }],
    ["general.name", { type: "string", value: `little-canary tiny test model (${options.reply ?? "short"})` }],
    ["general.file_type", u32(0)],
    ["llama.context_length", u32(contextLength)],
    ["llama.embedding_length", u32(N_EMBD)],
    ["llama.block_count", u32(N_LAYERS)],
    ["llama.feed_forward_length", u32(N_FF)],
    ["llama.rope.dimension_count", u32(N_EMBD / N_HEAD)],
    ["llama.attention.head_count", u32(N_HEAD)],
    ["llama.attention.head_count_kv", u32(N_HEAD)],
    ["llama.attention.layer_norm_rms_epsilon", { type: "f32", value: 1e-5 }],
    ["llama.vocab_size", u32(nVocab)],
    ["tokenizer.ggml.model", { type: "string", value: "llama" }],
    ["tokenizer.ggml.tokens", { type: "array", of: "string", values: vocab.tokens }],
    ["tokenizer.ggml.scores", { type: "array", of: "f32", values: vocab.scores }],
    ["tokenizer.ggml.token_type", { type: "array", of: "i32", values: vocab.types }],
    ["tokenizer.ggml.bos_token_id", u32(1)],
    ["tokenizer.ggml.eos_token_id", u32(vocab.eos)],
    ["tokenizer.ggml.unknown_token_id", u32(0)],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: false }],
    ["tokenizer.ggml.add_eos_token", { type: "bool", value: false }],
    ["tokenizer.chat_template", { type: "string", value: CHATML_TEMPLATE }],
  ]);
  return writeGguf(metadata, tensors);
}
