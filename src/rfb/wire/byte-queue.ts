/**
 * The bytes received from a peer and not parsed yet, kept as the chunks they arrived in.
 * Parsers peek at the first n bytes and skip them once used; chunks are joined only when a
 * message spans them, so a large payload is copied once, not once per arriving chunk.
 */
export class ByteQueue {
  private chunks: Buffer[] = [];
  private total = 0;

  get length(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.total += chunk.length;
  }

  /** The first `size` bytes as one buffer (valid until the next skip), or undefined while fewer are here. */
  peek(size: number): Buffer | undefined {
    if (size > this.total) return undefined;
    if (size === 0) return Buffer.alloc(0);
    if (this.chunks[0].length < size) {
      let joined = 0;
      let count = 0;
      while (joined < size) joined += this.chunks[count++].length;
      this.chunks.splice(0, count, Buffer.concat(this.chunks.slice(0, count), joined));
    }
    return this.chunks[0].subarray(0, size);
  }

  skip(size: number): void {
    let left = Math.min(size, this.total);
    this.total -= left;
    while (left > 0) {
      const first = this.chunks[0];
      if (first.length <= left) {
        this.chunks.shift();
        left -= first.length;
      } else {
        this.chunks[0] = first.subarray(left);
        left = 0;
      }
    }
  }

  /** The first `size` bytes, consumed; undefined while fewer are here. */
  take(size: number): Buffer | undefined {
    const bytes = this.peek(size);
    if (bytes) this.skip(size);
    return bytes;
  }
}
