// The workspace is the folder the file tools work in. Every path the model gives is resolved
// inside it; a path that leaves it (through `..`, an absolute path elsewhere, or a symlink that
// points out) is refused before anything is read or written.
import { lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";

export class PathRefused extends Error {
  override name = "PathRefused";
}

export interface Workspace {
  /** The workspace folder, as a real path (symlinks resolved). */
  root: string;
  /** The absolute path for `path`, or a PathRefused error that says why not. Reads may also use the read-only folders. */
  resolve(path: string, access?: "read" | "write"): string;
  /** Lets reads (never writes) reach another folder too, e.g. the folder of a loaded skill. */
  allowReading(folder: string): void;
  /** Commands run under bubblewrap (--sandbox): only the workspace writable, no network. */
  sandbox: boolean;
}

export function createWorkspace(folder: string, options: { sandbox?: boolean } = {}): Workspace {
  const root = realpathSync(folder);
  const readable: string[] = [];
  return {
    root,
    sandbox: options.sandbox ?? false,
    resolve(path, access = "write") {
      if (path.trim() === "") throw new PathRefused("the path is empty");
      const absolute = resolve(root, path);
      const real = () => realPathOfNearestExisting(absolute);
      if (access === "read" && readable.some((extra) => isInside(extra, absolute) && isInside(extra, real()))) return absolute;
      if (!isInside(root, absolute)) throw new PathRefused(`${path} is outside the workspace ${root}`);
      if (!isInside(root, real())) throw new PathRefused(`${path} leads outside the workspace ${root} through a symlink`);
      return absolute;
    },
    allowReading(folder) {
      readable.push(realpathSync(folder));
    },
  };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
}

/** A file about to be created does not exist yet: check the real path of the folder it goes in. */
function realPathOfNearestExisting(path: string): string {
  const missing: string[] = [];
  for (let current = path; ; current = dirname(current)) {
    try {
      return resolve(realpathSync(current), ...missing);
    } catch {
      if (isSymlink(current)) throw new PathRefused(`${current} is a symlink to a missing target`);
      if (dirname(current) === current) return path;
      missing.unshift(basename(current));
    }
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
