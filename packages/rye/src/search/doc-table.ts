/**
 * The documents of a segment by id. A segment loaded from the stored index starts with its documents 1…n
 * described by the file (`StoredDocs`) and builds a document object only when one is asked for (a scored
 * candidate, a hit, a listing); documents added later live in a map. Ids only grow, so `keys()` is ascending.
 */
import type { IndexedDocument } from "./document.ts";
import type { FieldData } from "./field-data.ts";
import { fieldLength } from "./field-data.ts";

/** Documents 1…count of a stored segment. */
export interface StoredDocs {
  readonly count: number;
  /** Absolute path of document `n`. */
  path(n: number): string;
  /** Item id of document `n`. */
  id(n: number): string;
  /** Category of document `n`. */
  category(n: number): string;
  /** Field data of document `n` when it can be read without building the document (same term numbering), else null. */
  data(n: number): FieldData | null;
  /** The length (word count) of field `field` of document `n`. */
  fieldLength(n: number, field: number): number;
  /**
   * Whether documents 1…count were indexed, in that order, from the files at `paths` whose mtimeMs, size, ctimeMs
   * and inode are identities[4i…4i+3] (a scan's ScanTable, as long as `count`): same path, mtime, size, ctime and
   * inode, every one. One call for all (a cold start makes it once, over every stored document).
   */
  describesAll(paths: readonly string[], identities: Float64Array): boolean;
  /** Document `n` as an object (its docId is `n`). */
  build(n: number): IndexedDocument;
}

export class DocTable {
  /** `onBuild`: told each time a stored document is built (counters). */
  constructor(private readonly onBuild: () => void = () => undefined) {}

  private stored: StoredDocs | null = null;
  private built: (IndexedDocument | undefined)[] = [];
  private views: (FieldData | undefined)[] = [];
  private gone = new Uint8Array(0);
  private storedLive = 0;
  private readonly added = new Map<number, IndexedDocument>();

  /** Starts from a stored segment (the table must be empty). */
  adopt(stored: StoredDocs): void {
    this.stored = stored;
    this.built = new Array<IndexedDocument | undefined>(stored.count + 1);
    this.views = new Array<FieldData | undefined>(stored.count + 1);
    this.gone = new Uint8Array(stored.count + 1);
    this.storedLive = stored.count;
  }

  /** The stored documents, when the table holds exactly them (none removed, none added). */
  get pristineStored(): StoredDocs | null {
    return this.stored !== null && this.storedLive === this.stored.count && this.added.size === 0 ? this.stored : null;
  }

  get size(): number {
    return this.storedLive + this.added.size;
  }

  private inStored(id: number): boolean {
    return this.stored !== null && id >= 1 && id <= this.stored.count;
  }

  get(id: number): IndexedDocument | undefined {
    if (!this.inStored(id)) return this.added.get(id);
    if (this.gone[id]) return undefined;
    let doc = this.built[id];
    if (!doc) {
      doc = this.built[id] = this.stored!.build(id);
      this.onBuild();
    }
    return doc;
  }

  has(id: number): boolean {
    return this.inStored(id) ? this.gone[id] === 0 : this.added.has(id);
  }

  /** A document with a new id (above every stored one). */
  add(doc: IndexedDocument): void {
    this.added.set(doc.docId, doc);
  }

  delete(id: number): void {
    if (!this.inStored(id)) {
      this.added.delete(id);
      return;
    }
    if (this.gone[id]) return;
    this.gone[id] = 1;
    this.built[id] = undefined;
    this.views[id] = undefined;
    this.storedLive--;
  }

  /** Path of a live document, without building it. */
  pathOf(id: number): string | undefined {
    if (!this.inStored(id)) return this.added.get(id)?.path;
    return this.gone[id] ? undefined : this.stored!.path(id);
  }

  /** Field data of a live document, without building it when the stored data can be used as it is. */
  dataOf(id: number): FieldData | undefined {
    if (!this.inStored(id)) return this.added.get(id)?.data;
    if (this.gone[id]) return undefined;
    const built = this.built[id];
    if (built) return built.data;
    // Kept: a long-lived process scores the same documents search after search.
    let view = this.views[id];
    if (!view) {
      const data = this.stored!.data(id);
      if (!data) return this.get(id)!.data;
      view = this.views[id] = data;
    }
    return view;
  }

  /** The length of field `field` of a live document (0 for a removed one), read without its field data when stored. */
  fieldLengthOf(id: number, field: number): number {
    if (!this.inStored(id)) {
      const doc = this.added.get(id);
      return doc ? fieldLength(doc.data, field) : 0;
    }
    return this.gone[id] ? 0 : this.stored!.fieldLength(id, field);
  }

  /** Category of a live document, without building it. */
  categoryOf(id: number): string | undefined {
    if (!this.inStored(id)) return this.added.get(id)?.category;
    return this.gone[id] ? undefined : this.stored!.category(id);
  }

  /** Item id of a live document, without building it. */
  itemIdOf(id: number): string | undefined {
    if (!this.inStored(id)) return this.added.get(id)?.id;
    return this.gone[id] ? undefined : this.stored!.id(id);
  }

  *keys(): IterableIterator<number> {
    const count = this.stored?.count ?? 0;
    for (let id = 1; id <= count; id++) if (this.gone[id] === 0) yield id;
    yield* this.added.keys();
  }

  *values(): IterableIterator<IndexedDocument> {
    for (const id of this.keys()) yield this.get(id)!;
  }
}
