/**
 * Characters a file name never needs and that can mislead where it is shown: C0 controls and DEL
 * (CR and LF split log lines and headers), C1 controls, and the bidirectional embeddings, overrides
 * and isolates (U+202E shows `deck\u202Efdp.exe` as `deckexe.pdf`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is its purpose
const UNSAFE_IN_NAMES = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/** A file name without control characters or bidirectional controls, and without surrounding spaces. */
export function cleanFileName(name: string): string {
  return name.replace(UNSAFE_IN_NAMES, '').trim();
}
