// The ladder's promise: each stage is the one before plus one component. A component is a
// marked region, introduced in one stage and carried unchanged into every later one.
import { describe, expect, test } from "vitest";
import { readStage, regionsOf, stageNames } from "../scripts/regions.ts";

const stages = stageNames();

describe("stage files", () => {
  test("the ladder has its stages in order", () => {
    expect(stages.slice(0, 3)).toEqual(["stage0", "stage1", "stage2"]);
  });

  for (const [index, stage] of stages.entries()) {
    test(`${stage} carries every earlier component unchanged (run make sync after editing one)`, () => {
      const own = regionsOf(readStage(stage));
      for (const earlier of stages.slice(0, index)) {
        const introduced = regionsOf(readStage(earlier)).filter((r) => r.introducedIn === earlier);
        const copies = own.filter((r) => r.introducedIn === earlier);
        expect(copies.map((r) => r.name), `${stage}.ts regions from ${earlier}`).toEqual(introduced.map((r) => r.name));
        for (const [i, region] of introduced.entries()) {
          expect(copies[i].body, `region ${region.name} in ${stage}.ts`).toBe(region.body);
        }
      }
    });

    test(`${stage} introduces its components under its own name, and imports no other stage`, () => {
      const text = readStage(stage);
      for (const region of regionsOf(text)) expect(stages.indexOf(region.introducedIn)).toBeLessThanOrEqual(index);
      expect(text).not.toMatch(/from "\.\/stage\d/);
      expect(text).toMatch(new RegExp(`name: "${stage}"`));
    });
  }
});
