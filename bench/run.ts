// make bench: start-up, time to first request, loop overhead, prefix reuse, sizes. Each figure is
// a median of repeated runs, and every ratio is taken against a baseline measured in the same
// run, since machines here are shared and noisy. Prints one table and writes docs/benchmarks.md.
// BENCH_RUNS=N sets the repeats (default 15); BENCH_SKIP_TEST=1 skips timing `make test`.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { followingRequests, listCases, loadStages, runCase, type CaseRun } from "../test/golden.ts";
import { startFakeProvider } from "../test/fake-provider.ts";

const ROOT = join(import.meta.dirname, "..");
const NODE = process.execPath; // the kit's Node 24: the same Node as inside the executables
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const STAGES = ["stage0", "stage1", "stage2", "stage3", "stage4"];
const exe = (stage: string) => join(ROOT, "dist", stage);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;
const ratio = (n: number) => `${n.toFixed(2)}x`;

/** Wall time of a command run to its end, in milliseconds. */
function timeOf(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const started = performance.now();
  const run = spawnSync(file, args, { stdio: "ignore", env });
  if (run.status !== 0) throw new Error(`${file} ${args.join(" ")} exited with ${run.status}`);
  return performance.now() - started;
}

/** Runs the candidates interleaved, so a slow moment of the machine hits them all alike. */
function medians(candidates: Record<string, () => number>): Record<string, number> {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(candidates).map((name) => [name, []]));
  for (const measure of Object.values(candidates)) measure(); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const [name, measure] of Object.entries(candidates)) samples[name].push(measure());
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
}

function coldStart(): string[] {
  const candidates: Record<string, () => number> = { "node -e 0": () => timeOf(NODE, ["-e", "0"]) };
  for (const stage of STAGES) {
    candidates[`${stage} --version`] = () => timeOf(exe(stage), ["--version"]);
    candidates[`${stage} --help`] = () => timeOf(exe(stage), ["--help"]);
  }
  const result = medians(candidates);
  const base = result["node -e 0"];
  return [
    "| command | median | vs `node -e 0` |",
    "|---|---:|---:|",
    ...Object.entries(result).map(([name, value]) => `| \`${name}\` | ${ms(value)} | ${ratio(value / base)} |`),
  ];
}

/** From spawning the executable until the local server holds its first request. */
async function firstRequest(): Promise<string[]> {
  const rows: string[] = [];
  const provider = await startFakeProvider([{ role: "assistant", content: "ok" }], { repeatLast: true });
  const env = { ...process.env, OPENAI_BASE_URL: provider.url, AGENT_MODEL: "bench", NO_COLOR: "1" };
  const once = (file: string, args: string[]) => new Promise<number>((resolve, reject) => {
    const seen = provider.requests.length;
    const started = Date.now();
    const child = spawn(file, args, { stdio: "ignore", env });
    child.on("exit", (code) => {
      if (code !== 0 || provider.requests.length !== seen + 1) reject(new Error(`${file} exited ${code} without one request`));
      else resolve(provider.times[seen] - started);
    });
  });
  const sample = async (file: string, args: string[]) => {
    await once(file, args);
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) samples.push(await once(file, args));
    return median(samples);
  };
  const base = median(Array.from({ length: RUNS }, () => timeOf(NODE, ["-e", "0"])));
  // The floor for any Node program that talks HTTP: loading Node's own fetch (undici) is most of it.
  const post = `fetch(process.argv[1] + "/chat/completions", { method: "POST", body: "{}" }).then((r) => r.text())`;
  const fetchFloor = await sample(NODE, ["-e", post, provider.url]);
  rows.push("| program | first request after | vs `node -e 0` | vs bare Node + fetch |", "|---|---:|---:|---:|");
  for (const stage of STAGES) {
    const value = await sample(exe(stage), ["-y", "hi"]);
    rows.push(`| ${stage} | ${ms(value)} | ${ratio(value / base)} | ${ratio(value / fetchFloor)} |`);
  }
  rows.push(`| bare Node + fetch | ${ms(fetchFloor)} | ${ratio(fetchFloor / base)} | 1.00x |`);
  rows.push(`| \`node -e 0\` | ${ms(base)} | 1.00x | |`);
  await provider.close();
  return rows;
}

interface LoopFigures { steps: number; ms: number; msPerStep: number; maxRssMB: number; heapUsedMB: number; transcriptKB: number }

function loopOverhead(): string[] {
  const measure = (steps: number): LoopFigures => {
    const runs = Array.from({ length: Math.max(5, Math.round(RUNS / 3)) }, () => {
      const out = spawnSync(NODE, [join(ROOT, "bench", "loop.ts"), String(steps)], { encoding: "utf8" });
      if (out.status !== 0) throw new Error(out.stderr);
      return JSON.parse(out.stdout) as LoopFigures;
    });
    const mid = (key: keyof LoopFigures) => median(runs.map((run) => run[key]));
    return { steps, ms: mid("ms"), msPerStep: mid("msPerStep"), maxRssMB: mid("maxRssMB"), heapUsedMB: mid("heapUsedMB"), transcriptKB: mid("transcriptKB") };
  };
  const [small, large] = [measure(100), measure(1000)];
  const row = (f: LoopFigures) =>
    `| ${f.steps} | ${ms(f.ms)} | ${(f.msPerStep * 1000).toFixed(1)} µs | ${f.maxRssMB.toFixed(1)} MB | ${f.heapUsedMB.toFixed(1)} MB | ${f.transcriptKB.toFixed(0)} kB |`;
  return [
    "| steps | whole run | per step | peak RSS | heap after | transcript |",
    "|---:|---:|---:|---:|---:|---:|",
    row(small),
    row(large),
    `| 100 → 1,000 | | ${ratio(large.msPerStep / small.msPerStep)} per step | +${(large.maxRssMB - small.maxRssMB).toFixed(1)} MB | | ${ratio(large.transcriptKB / small.transcriptKB)} |`,
  ];
}

/** For each request that follows an earlier one of its conversation, the share of that request it repeats unchanged at its start. */
function prefixShares(requests: CaseRun["requests"]): number[] {
  return followingRequests(requests).map(({ previous, next }) => {
    const before = requests[previous].messages;
    let same = 0;
    while (same < before.length && JSON.stringify(requests[next].messages[same]) === JSON.stringify(before[same])) same++;
    return same / before.length;
  });
}

async function prefixReuse(): Promise<string[]> {
  const rows = ["| stage | golden sessions | requests compared | mean share | lowest |", "|---|---:|---:|---:|---:|"];
  for (const stage of await loadStages()) {
    const shares: number[] = [];
    const cases = listCases(stage.name);
    for (const name of cases) shares.push(...prefixShares((await runCase(stage, name)).requests));
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    rows.push(`| ${stage.name} | ${cases.length} | ${shares.length} | ${mean.toFixed(3)} | ${Math.min(...shares).toFixed(3)} |`);
  }
  return rows;
}

function sizes(): string[] {
  const rows = ["| what | figure |", "|---|---:|"];
  for (const stage of STAGES) rows.push(`| dist/${stage} | ${(statSync(exe(stage)).size / 1024 / 1024).toFixed(1)} MB |`);
  if (process.env.BENCH_SKIP_TEST) return rows;
  const started = performance.now();
  const run = spawnSync("make", ["test"], { cwd: ROOT, stdio: "ignore" });
  rows.push(`| \`make test\` wall time | ${((performance.now() - started) / 1000).toFixed(1)} s${run.status === 0 ? "" : " (failed)"} |`);
  return rows;
}

function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, ` +
    `${process.platform} ${process.arch}, Node ${process.version}; ${RUNS} runs per figure, ${new Date().toISOString().slice(0, 10)}`;
}

const missing = STAGES.filter((stage) => !existsSync(exe(stage)));
if (missing.length > 0) {
  console.error(`bench: build the executables first (make build); missing: ${missing.join(", ")}`);
  process.exit(2);
}

const sections: [string, string, string[]][] = [];
const section = async (title: string, note: string, rows: () => string[] | Promise<string[]>) => {
  process.stderr.write(`bench: ${title}...\n`);
  sections.push([title, note, await rows()]);
};
await section("Cold start", "Each executable printing its version or help, against bare `node -e 0` (goal: --help within 1.2x).", coldStart);
await section("Time to first request", "From spawning `stageN -y hi` until a local OpenAI-compatible server on 127.0.0.1 receives the request (goal: within 1.5x of `node -e 0`). A bare Node script that only POSTs with fetch is the floor.", firstRequest);
await section("Loop overhead", "The loop alone (bench/loop.ts): a model that answers at once, one trivial tool call per step (goal: under 1 ms per step, flat from 100 to 1,000 steps; memory linear in the transcript).", loopOverhead);
await section("Prefix reuse", "Over every golden session, the share of each request's messages that repeats the previous request of the same conversation unchanged (goal: 1.0).", prefixReuse);
await section("Size", "Each executable holds a whole Node 24 and the bundled kit.", sizes);

const markdown = [
  "# Benchmarks",
  "",
  `Measured by \`make bench\` (bench/run.ts) on ${machine()}.`,
  "Figures are medians; ratios are against a baseline measured in the same run.",
  "",
  ...sections.flatMap(([title, note, rows]) => [`## ${title}`, "", note, "", ...rows, ""]),
].join("\n");
// The written reading of the figures, below its heading, is kept from the last version of the file.
const file = join(ROOT, "docs", "benchmarks.md");
const previous = existsSync(file) ? readFileSync(file, "utf8") : "";
const reading = previous.indexOf("## Reading these figures");
writeFileSync(file, markdown + (reading === -1 ? "" : "\n" + previous.slice(reading)));
console.log(markdown);
