# opslab: who decides when a Pod goes away.
#
#   make start            start the lab cluster and the course site (learners)
#   make test             every test, end-to-end suite on a private cluster included
#
# `make help` lists every target.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

LAB_BIN := $(shell bash -c '. lab/scripts/versions.sh && echo $$LAB_BIN')
# The learner's own PATH, so the scripts can tell which kubectl their shell runs.
export OPSLAB_USER_PATH := $(PATH)
export PATH := $(LAB_BIN):$(PATH)
export OPSLAB_CONTEXT ?= kwok-opslab
# The admin's context of the same cluster: the lab's own scripts and labcheck.
export OPSLAB_ADMIN_CONTEXT ?= $(OPSLAB_CONTEXT)-admin
GO ?= go

.PHONY: help
help: ## list the targets
	@grep -hE '^[a-z0-9%-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | awk -F'\t' '{printf "  make %-18s %s\n", $$1, $$2}'

SITE_ADDR ?= localhost:8080

.PHONY: start bench-first-run
start: ## the learner's one command: serve the course at once, then build and start the lab cluster while you read
	@SITE_ADDR=$(SITE_ADDR) lab/scripts/start.sh

bench-first-run: ## time a first make start on empty caches, in a copy of the checkout, as a table (run it on an idle machine)
	@lab/scripts/bench-first-run.sh

# The results come as make test writes them: go test -json through testlog,
# which prints the tests' output as go test would, into .artifacts, one file
# for the root module and one for each module nested in a chapter.
.PHONY: site
site: ## build the course site into site/out, with every proof's test result
	@. lab/scripts/versions.sh; \
	mkdir -p .artifacts "$$LAB_CACHE"; \
	$(GO) build -o "$$LAB_CACHE/testlog" ./lab/testlog; \
	$(GO) test -json ./... | "$$LAB_CACHE/testlog" .artifacts/unit-results.json; \
	results=.artifacts/unit-results.json; \
	for mod in chapters/*/*/go.mod; do \
		[ -e "$$mod" ] || continue; \
		dir=$$(dirname "$$mod"); \
		out=.artifacts/$$(echo "$$dir" | tr / -)-results.json; \
		(cd "$$dir" && $(GO) test -json ./...) | "$$LAB_CACHE/testlog" "$$out"; \
		results=$$results,$$out; \
	done; \
	$(GO) run ./cmd/site -out site/out -results "$$results"
	@echo "site: built into site/out; make serve serves it"

.PHONY: serve
serve: ## serve the course site on localhost and rebuild it when a chapter changes
	@$(GO) run ./cmd/site -out site/out -serve $(SITE_ADDR) -watch

.PHONY: lab-binaries
lab-binaries: ## build kube-apiserver, etcd, kwok and friends from pinned sources (cached)
	@lab/scripts/build-binaries.sh

.PHONY: lab-up
lab-up: ## start the lab cluster "opslab" (or reuse it when healthy)
	@lab/scripts/lab-up.sh

.PHONY: env
env: ## print the line that puts the course's kubectl first on your PATH: eval "$$(make -s env)"
	@lab/scripts/env.sh

.PHONY: outage-up outage-down outage outage-predict bench-outage
outage-up: ## chapter 2's zone-outage lab: start the 150-node scale cluster next to yours
	@chapters/02-taints/lab/outage/up.sh

outage-down: ## remove the zone-outage lab's scale cluster
	@chapters/02-taints/lab/outage/down.sh

outage-predict: ## what the model expects of each outage on the scale cluster (EXP=name for one)
	@$(GO) run ./chapters/02-taints/cmd/outage predict $(EXP)

outage: ## run the zone-outage lab's experiments on the scale cluster, each predicted first (EXP=name for one, SVG=file to draw the run)
	@$(GO) run ./chapters/02-taints/cmd/outage $(if $(SVG),--svg $(SVG)) run $(EXP)

bench-outage: ## time make outage-up (150 nodes Ready) against raw kwokctl create and scale node, warm binaries
	@chapters/02-taints/lab/outage/bench.sh

.PHONY: lab-down
lab-down: ## remove the lab cluster
	@lab/scripts/lab-down.sh

.PHONY: lab-reset
lab-reset: ## remove the lab cluster and start a clean one
	@lab/scripts/lab-down.sh
	@lab/scripts/lab-up.sh

# A class on one host (lab/scripts/class.sh): a lab cluster per student, the
# evidence in CLASS_DIR (default .class), out of the students' reach.
.PHONY: class-up class-status class-reset class-down bench-class
class-up: ## start (or resume) a lab cluster per student of ROSTER, answering at HOST; writes a kubeconfig per student and the grading roster
	@test -n "$(ROSTER)" || { echo "make class-up needs ROSTER=file (one student name a line) and HOST=the name or address students reach this machine at" >&2; exit 2; }
	@lab/scripts/class.sh up "$(ROSTER)" "$(HOST)"
class-status: ## each class cluster's health, uptime and memory
	@lab/scripts/class.sh status
class-reset: ## a fresh cluster for student NAME, their kubeconfig unchanged, the old audit log archived
	@test -n "$(NAME)" || { echo "make class-reset needs NAME=student" >&2; exit 2; }
	@lab/scripts/class.sh reset "$(NAME)"
class-down: ## remove every class cluster, archiving their audit logs
	@lab/scripts/class.sh down
bench-class: ## how many students this machine holds: start classes of 2, 5 and 10 (BENCH_SIZES), measure each cluster idle and busy, print a table
	@lab/scripts/bench-class.sh

.PHONY: test
test: ## every test: go test ./..., then the end-to-end suite on a private cluster
	@lab/scripts/test.sh

# Each claim's plant breaks the model the way the claim says it is not
# (chapters/NN-x/plants, see CONTRIBUTING.md); its tests must fail. make
# test checks only the plants whose inputs changed since plants/verdicts.sum.
.PHONY: proofs
proofs: ## run every claim's plant and print a table of claim, plant, tests, verdict and time (W=1 records the verdicts)
	@$(GO) run ./cmd/proofs -all $(if $(W),-w)

.PHONY: mutation
mutation: ## mutation testing (go-gremlins, pinned) of each chapter's model package, efficacy per package; slow, not part of make test (DIRS=chapters/01-pdb for one)
	@lab/scripts/mutation.sh $(DIRS)

.PHONY: test-unit
test-unit: ## the tests that need no cluster
	@$(GO) test ./...

.PHONY: chapter-figures
chapter-figures: ## each chapter's figures against the budgets of its shape: words, lab steps, words before the first command, sentences, links, tests named
	@$(GO) run ./cmd/chapterfigures

chapter = $(or $(wildcard chapters/0$(1)-*),$(error there is no chapter $(1); the chapters are $(notdir $(wildcard chapters/*))))

check-chapter-%: ## run chapter N's tests and scenarios, then check its lab on your cluster and show your track's steps
	@lab/scripts/require-go.sh
	@$(GO) test ./$(call chapter,$*)/...
	@$(GO) build -o .cache/bin/labcheck ./cmd/labcheck
	@$(GO) build -o .cache/bin/learn ./cmd/learn
	@status=0; .cache/bin/labcheck --chapter $* --context $(OPSLAB_ADMIN_CONTEXT) || status=$$?; \
	echo "your build-along track:"; .cache/bin/learn status $*; exit $$status

# The build-along tracks (cmd/learn): the learner writes each chapter's
# model in a workspace under _learn/, which git ignores and no target
# overwrites.
.PHONY: learn-status
learn-chapter-%: ## start (or continue) chapter N's build-along track and watch your workspace: tests run on every save
	@lab/scripts/require-go.sh
	@: $(call chapter,$*)
	@$(GO) build -o .cache/bin/learn ./cmd/learn
	@.cache/bin/learn start $* && .cache/bin/learn watch $*

hint-chapter-%: ## the next hint for the current step of chapter N's track
	@$(GO) run ./cmd/learn hint $*

reset-step-chapter-%: ## put a step of chapter N's track back to its start, keeping your file (STEP=id or number)
	@$(GO) run ./cmd/learn reset $* "$(STEP)"

learn-status: ## every chapter's build-along track: steps done, current, pending
	@$(GO) run ./cmd/learn status

.PHONY: gradescope
gradescope: ## zip the Gradescope autograder for the build-along tracks into .artifacts/gradescope.zip
	@cmd/learn/gradescope/bundle.sh .artifacts/gradescope.zip

differential-chapter-%: ## chapter N's randomized differentials at length (CASES=500, SEED=random; prints the seed)
	@lab/scripts/differential.sh $*

solve-chapter-%: ## run chapter N's reference solution on your cluster
	@$(call chapter,$*)/lab/solve.sh

.PHONY: quotes
quotes: figures ## rewrite every quoted region of the prose from its source, and redraw the figures
	@$(GO) run ./cmd/quote -w README.md CONTRIBUTING.md chapters/[0-9]*-*/*.md

# Each chapter's TestFiguresAreCurrent draws its figures from the model and,
# with UPDATE_FIGURES set, writes them into the chapter's figures/.
.PHONY: figures
figures: ## redraw every chapter's figures (figures/*.svg) from its model
	@out=$$(UPDATE_FIGURES=1 $(GO) test -count=1 -run '^TestFiguresAreCurrent$$' ./chapters/... 2>&1) || { echo "$$out"; exit 1; }
	@echo "figures: redrawn; git diff --stat -- 'chapters/*/figures' shows what changed"

.PHONY: bump-kubernetes
bump-kubernetes: ## move the course to another release and write UPSTREAM.md, the drift report (VERSION=vX.Y.Z; E2E=0 skips make test)
	@lab/scripts/bump.sh "$(VERSION)"

.PHONY: upstream-report
upstream-report: ## write UPSTREAM.md again from the last tests' results (FROM=the release the course moved from)
	@$(GO) run ./lab/bump report -from "$(FROM)" -o UPSTREAM.md

.PHONY: bench
bench: ## the models' and tools' benchmarks (medians of 5 runs)
	@$(GO) test -run '^$$' -bench . -count 5 ./... | tee .cache/bench.txt

.PHONY: bench-lab
bench-lab: ## time lab-up against a raw kwokctl create cluster, with warm binaries
	@lab/scripts/bench-lab.sh

.PHONY: dist
dist: ## labcheck for linux, darwin and windows on amd64 and arm64, with SHA256SUMS, into .artifacts/dist
	@lab/scripts/dist.sh

.PHONY: lab-binaries-darwin
lab-binaries-darwin: ## cross-compile the lab's binaries for macOS (amd64, arm64); slow, not part of make test
	@lab/scripts/cross-lab.sh
