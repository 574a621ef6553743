/** True when dist/ (of `root`, the project by default) was built after the last change to any source file. */
export function buildIsCurrent(root?: string): boolean;
/** Compiles into dist/ and stamps the build; answers tsc's exit status. */
export function build(): number;
/** The path of TypeScript's tsc; undefined in an install without development dependencies. */
export function compiler(): string | undefined;
/** Rewrites the JavaScript files of `dir` in ASCII (`\uXXXX` escapes); throws on a line or paragraph separator. */
export function asciiSources(dir: string): void;
