// Where the kit's own files come from when it runs from source: the repository itself.
// The build replaces this one module with the same files embedded (scripts/kit-files-plugin.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The folders whose files ship inside every executable. */
export const KIT_FOLDERS = ["skills", "docs/demo"];

export function readKitFiles(root = join(import.meta.dirname, "..")): Record<string, string> {
  const files: Record<string, string> = {};
  for (const folder of KIT_FOLDERS) {
    for (const entry of readdirSync(join(root, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || entry.parentPath.includes("__pycache__")) continue;
      const path = join(entry.parentPath, entry.name);
      files[relative(root, path)] = readFileSync(path, "utf8");
    }
  }
  return files;
}
