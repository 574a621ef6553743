import { Inflate } from 'fflate';
import { groupThousands } from './grouping.ts';

/** A zip archive that cannot be read, or one that would read beyond a limit; the message says which. */
export class ZipError extends Error {
  override name = 'ZipError';

  /** For a bound passed while inflating: how many bytes had been inflated when it stopped. */
  constructor(
    message: string,
    readonly inflated?: number,
  ) {
    super(message);
  }
}

/** One file of a zip archive, as its central directory describes it. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; any other is refused when read. */
  method: number;
  /** Sizes as declared: the compressed one bounds what is read, the other is never trusted. */
  compressedSize: number;
  declaredSize: number;
  /** Where the entry's local header starts. */
  offset: number;
  encrypted: boolean;
}

export interface ZipLimits {
  /** An archive listing more entries is refused. */
  maxEntries: number;
  /** One entry inflating beyond this many bytes is refused. */
  maxEntryBytes: number;
  /** All entries read from one archive, together, inflating beyond this many bytes are refused. */
  maxTotalBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 10_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
};

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
/** The input fed to the inflater at a time: one push can inflate to at most about 1,032 times this. */
const INPUT_CHUNK = 4096;

const mib = (n: number) => `${Math.round(n / (1024 * 1024))} MB`;
const names = new TextDecoder('utf-8');

function u16(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8);
}
function u32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}

/** The end-of-central-directory record: searched backwards over the comment that may follow it. */
function findEnd(bytes: Uint8Array): number {
  const last = bytes.length - EOCD_SIZE;
  const first = Math.max(0, last - 0xffff);
  for (let at = last; at >= first; at--) {
    if (bytes[at] === 0x50 && u32(bytes, at) === EOCD) return at;
  }
  return -1;
}

/** Whether the bytes are a zip archive whose central directory can be found (nothing is inflated). */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= EOCD_SIZE && u32(bytes, 0) === LOCAL && findEnd(bytes) >= 0;
}

/**
 * The entries of a zip archive, read from its central directory alone. Zip64 archives (over 4 GB or
 * 65,535 entries) are refused: no document accepted here is that large.
 */
export function listZip(
  bytes: Uint8Array,
  limits: Pick<ZipLimits, 'maxEntries'> = DEFAULT_ZIP_LIMITS,
): ZipEntry[] {
  const end = findEnd(bytes);
  if (end < 0) throw new ZipError('not a zip archive (no central directory)');
  const count = u16(bytes, end + 10);
  const size = u32(bytes, end + 12);
  const start = u32(bytes, end + 16);
  if (count === 0xffff || size === 0xffffffff || start === 0xffffffff)
    throw new ZipError('a zip64 archive, which is not supported');
  if (count > limits.maxEntries)
    throw new ZipError(`a zip archive of more than ${groupThousands(limits.maxEntries)} entries`);
  if (start + size > end) throw new ZipError('a damaged zip archive (central directory out of bounds)');
  const entries: ZipEntry[] = [];
  let at = start;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || u32(bytes, at) !== CENTRAL)
      throw new ZipError('a damaged zip archive (bad central directory)');
    const nameLength = u16(bytes, at + 28);
    const next = at + 46 + nameLength + u16(bytes, at + 30) + u16(bytes, at + 32);
    if (next > end) throw new ZipError('a damaged zip archive (bad central directory)');
    entries.push({
      name: names.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      method: u16(bytes, at + 10),
      encrypted: (u16(bytes, at + 8) & 1) === 1,
      compressedSize: u32(bytes, at + 20),
      declaredSize: u32(bytes, at + 24),
      offset: u32(bytes, at + 42),
    });
    at = next;
  }
  return entries;
}

/** Where an entry's data starts, after its local header. */
function dataStart(bytes: Uint8Array, entry: ZipEntry): number {
  const at = entry.offset;
  if (at + 30 > bytes.length || u32(bytes, at) !== LOCAL)
    throw new ZipError(`a damaged zip archive (no local header for ${entry.name})`);
  const start = at + 30 + u16(bytes, at + 26) + u16(bytes, at + 28);
  if (start + entry.compressedSize > bytes.length)
    throw new ZipError(`a damaged zip archive (${entry.name} runs past the end)`);
  return start;
}

/**
 * Inflates raw DEFLATE data a chunk at a time, handing each piece of output to `onChunk`, and stops
 * with a ZipError as soon as the output passes `maxBytes`: the size the data declares is never trusted.
 */
export function inflateBounded(
  data: Uint8Array,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => void,
  what = 'the data',
): number {
  let produced = 0;
  let ended = false;
  let passOn: unknown;
  const inflater = new Inflate((chunk, final) => {
    produced += chunk.length;
    if (produced > maxBytes) {
      passOn = new ZipError(`${what} inflates beyond ${mib(maxBytes)}`, produced);
      throw passOn;
    }
    try {
      if (chunk.length > 0) onChunk(chunk);
    } catch (err) {
      passOn = err;
      throw err;
    }
    if (final) ended = true;
  });
  try {
    for (let at = 0; at < data.length && !ended; at += INPUT_CHUNK) {
      const end = Math.min(at + INPUT_CHUNK, data.length);
      inflater.push(data.subarray(at, end), end === data.length);
    }
    if (data.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (err) {
    // What the consumer threw (a parser that has read enough) passes through unchanged.
    if (passOn !== undefined && err === passOn) throw err;
    throw new ZipError(`${what} is damaged (${err instanceof Error ? err.message : String(err)})`);
  }
  return produced;
}

/**
 * A zip archive to read entries from, under the limits: each entry's inflated bytes are counted as
 * they come, against the entry's cap and the archive's total.
 */
export class ZipReader {
  readonly entries: ZipEntry[];
  private readonly byName = new Map<string, ZipEntry>();
  private total = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly limits: ZipLimits = DEFAULT_ZIP_LIMITS,
  ) {
    this.entries = listZip(bytes, limits);
    for (const e of this.entries) if (!this.byName.has(e.name)) this.byName.set(e.name, e);
  }

  entry(name: string): ZipEntry | undefined {
    return this.byName.get(name);
  }

  /**
   * Streams one entry's content to `onChunk`, at most `maxBytes` of it (the entry cap by default). An
   * entry that inflates past the size it declares is a crafted one: refused from its sizes alone when
   * its compressed data is too long to hold so little, else as soon as the inflated bytes pass it.
   */
  read(entry: ZipEntry, onChunk: (chunk: Uint8Array) => void, maxBytes = this.limits.maxEntryBytes): void {
    if (entry.encrypted) throw new ZipError(`${entry.name} is encrypted`);
    const start = dataStart(this.bytes, entry);
    const data = this.bytes.subarray(start, start + entry.compressedSize);
    const left = this.limits.maxTotalBytes - this.total;
    const bounds = [
      {
        bytes: entry.declaredSize,
        over: `${entry.name} inflates beyond the ${groupThousands(entry.declaredSize)} bytes it declares (a crafted zip)`,
      },
      { bytes: maxBytes, over: `${entry.name} inflates beyond ${mib(maxBytes)}` },
      {
        bytes: left,
        over: `the zip archive's entries inflate beyond ${mib(this.limits.maxTotalBytes)} in total`,
      },
    ];
    const { bytes: cap, over } = bounds.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    const count = (chunk: Uint8Array) => {
      this.total += chunk.length;
      onChunk(chunk);
    };
    if (entry.method === 0) {
      if (data.length > cap) throw new ZipError(over);
      count(data);
      return;
    }
    if (entry.method !== 8) throw new ZipError(`${entry.name} uses compression method ${entry.method}`);
    // DEFLATE never stores much more than it holds (stored blocks add 5 bytes in 64 KB, fixed codes at
    // most 9 bits a byte): data longer than that would inflate past the declared size, so none is read.
    if (data.length > entry.declaredSize * 1.125 + 1024) throw new ZipError(bounds[0]!.over, 0);
    try {
      inflateBounded(data, cap, count, entry.name);
    } catch (err) {
      if (err instanceof ZipError && err.message.startsWith(`${entry.name} inflates beyond`))
        throw new ZipError(over, err.inflated);
      throw err;
    }
  }

  /** One entry's whole content, at most `maxBytes` of it. */
  readAll(entry: ZipEntry, maxBytes = this.limits.maxEntryBytes): Uint8Array {
    const chunks: Uint8Array[] = [];
    let length = 0;
    this.read(
      entry,
      (c) => {
        chunks.push(c);
        length += c.length;
      },
      maxBytes,
    );
    const out = new Uint8Array(length);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
