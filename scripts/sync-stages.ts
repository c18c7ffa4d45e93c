// Copies every component region from the stage that introduces it into every later stage,
// so the copies are identical by construction. Edit a component where it is introduced, then
// run `make sync`. test/stages.test.ts fails when a copy has drifted.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { readStage, regionsOf, stageNames, STAGES_DIR } from "./regions.ts";

const stages = stageNames();
for (const [index, stage] of stages.entries()) {
  let text = readStage(stage);
  for (const source of stages.slice(0, index)) {
    const originals = regionsOf(readStage(source)).filter((r) => r.introducedIn === source);
    for (const name of new Set(originals.map((r) => r.name))) {
      const bodies = originals.filter((r) => r.name === name).map((r) => r.body);
      const copies = regionsOf(text).filter((r) => r.name === name && r.introducedIn === source);
      if (copies.length !== bodies.length) {
        console.error(`sync: ${stage}.ts has ${copies.length} "${name}" regions, ${source}.ts has ${bodies.length}: fix by hand`);
        process.exit(1);
      }
      const lines = text.split("\n");
      for (const [i, copy] of [...copies.entries()].reverse()) lines.splice(copy.start + 1, copy.end - copy.start - 1, bodies[i]);
      text = lines.join("\n");
    }
  }
  if (text !== readStage(stage)) {
    writeFileSync(join(STAGES_DIR, `${stage}.ts`), text);
    console.log(`sync: updated stages/${stage}.ts`);
  }
}
