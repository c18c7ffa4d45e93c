// The docs are built from the code: their diffs, transcripts and tables must be what
// `make docs` would write now, so changing a stage without regenerating the docs fails here.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, test } from "vitest";
import { DOCS, generate, ROOT } from "../scripts/docs.ts";

const read = (path: string) => readFileSync(`${ROOT}/${path}`, "utf8");

describe("docs/", () => {
  test.each(DOCS().map((file) => [basename(file), file]))("%s is current (run make docs if not)", (_, file) => {
    const doc = readFileSync(file, "utf8");
    expect(generate(doc) === doc, `${basename(file)} is stale: run make docs and review the change`).toBe(true);
  });

  test("every stage has a page with the diff from the stage before", () => {
    for (let n = 0; n <= 4; n++) {
      const doc = read(`docs/stage${n}.md`);
      if (n === 0) expect(doc).toContain("<!-- generated: file stages/stage0.ts -->");
      else expect(doc).toContain(`<!-- generated: diff stage${n - 1} stage${n} -->`);
      expect(doc).toMatch(/## Exercises\n\n1\. [\s\S]+\n2\. [\s\S]+\n3\. /);
    }
  });

  test("a change to a stage file makes its page stale", () => {
    const doc = read("docs/stage2.md");
    const changed = (path: string) => read(path).replace("const NAG_AFTER_ROUNDS = 3;", "const NAG_AFTER_ROUNDS = 4;");
    expect(generate(doc, changed)).not.toBe(doc);
    expect(generate(doc, changed)).toContain("+const NAG_AFTER_ROUNDS = 4;");
  });

  test("a block names what it shows; an unknown kind or a missing function is an error, not an empty block", () => {
    expect(() => generate("<!-- generated: nonsense -->\n<!-- end generated -->")).toThrow('unknown generated block "nonsense"');
    expect(() => generate("<!-- generated: function shared/loop.ts noSuchThing -->\n<!-- end generated -->")).toThrow("no top-level function noSuchThing");
  });
});
