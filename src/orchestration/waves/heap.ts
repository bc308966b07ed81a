/** A binary min-heap of numbers: the planner's ready queue, holding ranks in the candidate order. */
export class MinHeap {
  readonly #items: number[] = [];

  get size(): number {
    return this.#items.length;
  }

  push(value: number): void {
    const items = this.#items;
    items.push(value);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = items[parent] ?? value;
      if (above <= value) break;
      items[index] = above;
      index = parent;
    }
    items[index] = value;
  }

  pop(): number | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && (items[right] ?? 0) < (items[left] ?? 0) ? right : left;
      const below = items[child] ?? last;
      if (last <= below) break;
      items[index] = below;
      index = child;
    }
    items[index] = last;
    return top;
  }
}
