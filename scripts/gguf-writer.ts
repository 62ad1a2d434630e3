// A minimal GGUF (version 3) writer: enough of the format for the tiny test model of
// scripts/tiny-gguf-model.ts, written here so the tests depend on no GGUF library. Layout, all
// little-endian: the magic "GGUF", the version, the tensor and key/value counts (u64), the
// key/value metadata, one info per tensor (name, dimensions innermost first, type, offset into
// the data section), padding to the alignment, then each tensor's data at its aligned offset.
// Only F32 tensors are written; the value types are the ones GGUF metadata needs.

/** GGUF metadata value types (the numbering of the format). */
const TYPE = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;

/** One metadata value: a scalar of a named GGUF type, or an array of one element type. */
export type GgufValue =
  | { readonly type: "u32" | "i32" | "f32"; readonly value: number }
  | { readonly type: "bool"; readonly value: boolean }
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "array"; readonly of: "i32" | "f32" | "string"; readonly values: readonly (number | string)[] };

/** One F32 tensor: its name, its dimensions (innermost first, as GGUF orders them) and its data. */
export interface GgufTensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

/** GGUF's default alignment of the data section and of every tensor in it. */
export const GGUF_ALIGNMENT = 32;
const GGML_TYPE_F32 = 0;

class ByteSink {
  readonly #chunks: Buffer[] = [];
  length = 0;

  push(buffer: Buffer): void {
    this.#chunks.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.push(b);
  }
  i32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    this.push(b);
  }
  u64(value: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.push(b);
  }
  f32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.push(b);
  }
  string(value: string): void {
    const bytes = Buffer.from(value, "utf8");
    this.u64(bytes.length);
    this.push(bytes);
  }
  padTo(alignment: number): void {
    const pad = (alignment - (this.length % alignment)) % alignment;
    if (pad > 0) this.push(Buffer.alloc(pad));
  }
  bytes(): Buffer {
    return Buffer.concat(this.#chunks, this.length);
  }
}

function writeScalar(sink: ByteSink, type: "u32" | "i32" | "f32" | "string", value: number | string): void {
  if (type === "string") sink.string(String(value));
  else if (type === "u32") sink.u32(Number(value));
  else if (type === "i32") sink.i32(Number(value));
  else sink.f32(Number(value));
}

function writeValue(sink: ByteSink, value: GgufValue): void {
  if (value.type === "array") {
    sink.u32(TYPE.array);
    sink.u32(TYPE[value.of]);
    sink.u64(value.values.length);
    for (const item of value.values) writeScalar(sink, value.of, item);
    return;
  }
  sink.u32(TYPE[value.type]);
  if (value.type === "bool") sink.push(Buffer.from([value.value ? 1 : 0]));
  else writeScalar(sink, value.type, value.value);
}

/** The bytes of a GGUF v3 file holding `metadata` (in insertion order) and F32 `tensors`. */
export function writeGguf(metadata: ReadonlyMap<string, GgufValue>, tensors: readonly GgufTensor[]): Buffer {
  const sink = new ByteSink();
  sink.push(Buffer.from("GGUF", "ascii"));
  sink.u32(3);
  sink.u64(tensors.length);
  sink.u64(metadata.size);
  for (const [key, value] of metadata) {
    sink.string(key);
    writeValue(sink, value);
  }
  let offset = 0;
  for (const tensor of tensors) {
    const elements = tensor.dims.reduce((a, b) => a * b, 1);
    if (elements !== tensor.data.length) throw new Error(`tensor ${tensor.name}: ${tensor.data.length} values for dimensions ${tensor.dims.join("x")}`);
    sink.string(tensor.name);
    sink.u32(tensor.dims.length);
    for (const dim of tensor.dims) sink.u64(dim);
    sink.u32(GGML_TYPE_F32);
    sink.u64(offset);
    offset += Math.ceil((elements * 4) / GGUF_ALIGNMENT) * GGUF_ALIGNMENT;
  }
  sink.padTo(GGUF_ALIGNMENT);
  for (const tensor of tensors) {
    sink.push(Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength));
    sink.padTo(GGUF_ALIGNMENT);
  }
  return sink.bytes();
}
