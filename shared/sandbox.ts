// --sandbox: bash runs under bubblewrap, so what a command may touch is decided by the kernel,
// not by a list of patterns. The whole filesystem is mounted read-only except the workspace
// (read-only too for read-only subagents), /tmp is a private empty folder, and there is no network.
import { spawnSync } from "node:child_process";

export type SandboxAccess = "read-write" | "read-only";

/** The command line that runs `command` with bash inside the sandbox, in `root`. */
export function sandboxed(command: string, root: string, access: SandboxAccess, bwrap = "bwrap"): { file: string; args: string[] } {
  return {
    file: bwrap,
    args: [
      "--ro-bind", "/", "/",
      "--dev", "/dev",
      "--proc", "/proc",
      "--tmpfs", "/tmp",
      access === "read-write" ? "--bind" : "--ro-bind", root, root, // after /tmp, so a workspace in /tmp shows through
      "--unshare-net", // no network: only a loopback device of its own
      "--unshare-pid", // killing the sandbox kills everything started in it
      "--die-with-parent",
      "--chdir", root,
      "bash", "-c", command,
    ],
  };
}

/** Why --sandbox cannot work on this machine, or undefined when a test sandbox starts. */
export function sandboxProblem(bwrap = "bwrap"): string | undefined {
  const probe = spawnSync(bwrap, ["--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "true"], { encoding: "utf8" });
  if ((probe.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") {
    return "--sandbox needs bubblewrap (bwrap), which is not installed: install the bubblewrap package (apt-get install bubblewrap), or run without --sandbox";
  }
  if (probe.error || probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || "").trim().split("\n")[0];
    return `--sandbox: bubblewrap cannot make a sandbox on this machine (${why}); run without --sandbox`;
  }
  return undefined;
}
