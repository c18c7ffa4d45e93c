// Components live in marked regions: `// #region NAME (stageN)` ... `// #endregion`, where stageN
// is the stage that introduces the component. Every later stage carries the same regions,
// identical, so that diffing two neighbouring stages shows only the new component.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const STAGES_DIR = join(import.meta.dirname, "..", "stages");

export interface Region { name: string; introducedIn: string; body: string; start: number; end: number }

const OPEN = /^\/\/ #region (\S+) \((stage\d+)\)$/;

export function stageNames(): string[] {
  return readdirSync(STAGES_DIR).filter((f) => /^stage\d+\.ts$/.test(f)).map((f) => f.slice(0, -3)).sort();
}

/** The regions of a stage file, in order, with their line spans. */
export function regionsOf(text: string): Region[] {
  const lines = text.split("\n");
  const regions: Region[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf("// #endregion", i + 1);
    if (end < 0) throw new Error(`region ${open[1]} at line ${i + 1} has no // #endregion`);
    regions.push({ name: open[1], introducedIn: open[2], body: lines.slice(i + 1, end).join("\n"), start: i, end });
    i = end;
  }
  return regions;
}

export function readStage(name: string): string {
  return readFileSync(join(STAGES_DIR, `${name}.ts`), "utf8");
}
