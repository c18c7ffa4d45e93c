// Tool output goes back into the model's context, so it is kept to a budget: the head and the
// tail of a long output, with a visible marker for what was left out in the middle.

export const OUTPUT_BUDGET = 30_000;

/** Collects output as it streams in, holding at most `budget` bytes whatever the total. */
export class OutputClip {
  private head = "";
  private tail = "";
  private omitted = 0;

  private readonly budget: number;

  constructor(budget = OUTPUT_BUDGET) {
    this.budget = budget;
  }

  add(chunk: string): void {
    const room = this.budget / 2 - this.head.length;
    if (room > 0) {
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk === "") return;
    this.tail += chunk;
    const excess = this.tail.length - this.budget / 2;
    if (excess > 0) {
      this.omitted += Buffer.byteLength(this.tail.slice(0, excess));
      this.tail = this.tail.slice(excess);
    }
  }

  toString(): string {
    if (this.omitted === 0) return this.head + this.tail;
    return `${this.head}\n[... ${this.omitted} bytes omitted ...]\n${this.tail}`;
  }
}

export function clip(text: string, budget = OUTPUT_BUDGET): string {
  const output = new OutputClip(budget);
  output.add(text);
  return output.toString();
}
