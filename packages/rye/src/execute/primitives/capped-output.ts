/** Collects a child's output stream up to a byte cap; bytes past the cap are dropped and flagged. */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  exceeded = false;

  constructor(readonly capBytes: number) {}

  /** Returns false once the cap is exceeded. */
  push(chunk: Buffer): boolean {
    const room = this.capBytes - this.size;
    if (chunk.length > room) {
      if (room > 0) this.store(chunk.subarray(0, room));
      this.exceeded = true;
      return false;
    }
    this.store(chunk);
    return true;
  }

  private store(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }

  /** The last `maxBytes` kept bytes as text, with markers where output was cut, for error details. */
  tail(maxBytes = 4096): string {
    const all = Buffer.concat(this.chunks);
    const cut = Math.max(0, all.length - maxBytes);
    const head = cut > 0 ? `…[${cut} earlier bytes omitted]…` : "";
    const end = this.exceeded ? `…[output past ${this.capBytes} bytes dropped]` : "";
    return head + all.subarray(cut).toString("utf8") + end;
  }
}
