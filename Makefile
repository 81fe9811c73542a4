# Thin wrappers: the logic lives in scripts/.
.PHONY: up down status test lint build bench charts

up:      ## install what is missing, start everything, seed a demo project, print URL and token
	@bash scripts/dev/up.sh
down:    ## stop everything `make up` started
	@bash scripts/dev/down.sh
status:
	@bash scripts/lib/with-node.sh node packages/testkit/dist/dev.js status
test:    ## lint, type check, unit, integration and end-to-end tests (what CI runs)
	@bash scripts/test.sh
lint:
	@bash scripts/bootstrap.sh && bash scripts/lib/with-node.sh npm run --silent lint
build:
	@bash scripts/bootstrap.sh
charts:  ## lint and validate the Helm chart and skaffold.yaml (builds helm/kube-linter/kubeconform once)
	@bash scripts/bootstrap.sh && bash scripts/lib/with-node.sh bash -c 'bash scripts/charts/install-tools.sh && bash scripts/charts/check.sh'
bench:   ## benchmarks (print figures; not part of `make test`)
	@bash scripts/bootstrap.sh && bash scripts/lib/with-node.sh node bench/dist/run.js $(BENCH)
