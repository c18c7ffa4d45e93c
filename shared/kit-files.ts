// The files that ship with the kit (sample skills, the demo workspace and recordings), the same
// whether the kit runs from source, from the bundle or as a single executable.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readKitFiles } from "./kit-files-source.ts";

let cache: Record<string, string> | undefined;

/** The kit's files under `folder` (e.g. "skills"), keyed by their path below it. */
export function kitFiles(folder: string): Map<string, string> {
  cache ??= readKitFiles();
  const prefix = folder.replace(/\/$/, "") + "/";
  return new Map(Object.entries(cache).filter(([path]) => path.startsWith(prefix)).map(([path, text]) => [path.slice(prefix.length), text]));
}

/** Writes the kit's files under `folder` into `target`, e.g. the demo workspace into a temp folder. */
export function unpackKitFolder(folder: string, target: string): void {
  for (const [path, text] of kitFiles(folder)) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    writeFileSync(join(target, path), text, { mode: path.endsWith(".sh") ? 0o755 : 0o644 });
  }
}
