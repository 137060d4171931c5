// HTTP header fields as the Fetch standard's Headers keeps them: names case-insensitive (kept
// lower-case), repeated fields combined with ", ", iteration sorted by name. Used by httpFetch.ts
// for requests and responses.

/** What a Headers can be made from: another Headers (anything with forEach), pairs, or a record. */
export type HeadersInit =
  | { forEach(cb: (value: string, name: string) => void): void }
  | Iterable<readonly string[]>
  | Record<string, string | readonly string[] | undefined>;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkName(name: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`Headers: "${name}" is not a valid header name`);
  return name.toLowerCase();
}

function checkValue(name: string, value: string): string {
  const v = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\0\r\n]/.test(v)) throw new TypeError(`Headers: the value of "${name}" holds a line break or NUL`);
  return v;
}

export class HttpHeaders {
  private readonly map = new Map<string, string>();

  constructor(init?: HeadersInit) {
    if (init === undefined || init === null) return;
    if (typeof (init as { forEach?: unknown }).forEach === 'function' && !Array.isArray(init)) {
      (init as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) => this.append(name, value));
    } else if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError('Headers: each pair must hold a name and a value');
        this.append(pair[0]!, pair[1]!);
      }
    } else {
      for (const [name, value] of Object.entries(init as Record<string, string | readonly string[] | undefined>)) {
        if (value === undefined) continue;
        if (typeof value === 'string') this.append(name, value);
        else for (const v of value) this.append(name, v);
      }
    }
  }

  append(name: string, value: string): void {
    const key = checkName(name);
    const v = checkValue(name, value);
    const prev = this.map.get(key);
    this.map.set(key, prev === undefined ? v : `${prev}, ${v}`);
  }

  set(name: string, value: string): void {
    this.map.set(checkName(name), checkValue(name, value));
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }

  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }

  forEach(cb: (value: string, name: string, headers: HttpHeaders) => void): void {
    for (const [name, value] of this.entries()) cb(value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    const names = [...this.map.keys()].sort();
    for (const name of names) yield [name, this.map.get(name)!];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}
