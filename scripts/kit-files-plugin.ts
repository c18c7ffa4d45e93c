// esbuild plugin: replaces shared/kit-files-source.ts with a module that holds the kit's files
// as strings, so the bundle and the executable carry them inside.
import type { Plugin } from "esbuild";
import { join } from "node:path";
import { readKitFiles } from "../shared/kit-files-source.ts";

export function kitFilesPlugin(root: string): Plugin {
  return {
    name: "kit-files",
    setup(build) {
      build.onLoad({ filter: /shared[\\/]kit-files-source\.ts$/ }, () => ({
        contents: `export const KIT_FOLDERS = []; export function readKitFiles() { return ${JSON.stringify(readKitFiles(root))}; }`,
        loader: "js",
        watchFiles: [join(root, "shared", "kit-files-source.ts")],
      }));
    },
  };
}
