// Node 20 has these (V8 11.3); the ES2024 lib also declares APIs Node 20 lacks, so only these two are added.
interface String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}
