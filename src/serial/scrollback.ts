/** What a serial line keeps of its console's output while nobody looks: the last 1 MiB. */
export const SCROLLBACK_BYTES = 1024 * 1024;

/**
 * The last `capacity` bytes written, oldest first. Chunks are kept as they came and trimmed
 * from the front, so a burst costs no copy until someone reads it back.
 */
export class Scrollback {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes written since the last markRead(): output nobody has seen yet. */
  private unseen = 0;

  constructor(private readonly capacity = SCROLLBACK_BYTES) {}

  write(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const kept = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
    this.unseen += chunk.length;
    while (this.size > this.capacity) {
      const first = this.chunks[0];
      const excess = this.size - this.capacity;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** Everything kept, oldest first. */
  contents(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  /** Bytes printed since the user last looked (may exceed what is kept). */
  get unseenBytes(): number {
    return this.unseen;
  }

  markSeen(): void {
    this.unseen = 0;
  }

  get length(): number {
    return this.size;
  }
}
