#!/bin/sh
# Waits for a Job to end either way: exit 0 when it completes, 1 as soon as
# it fails (kubectl wait --for=condition=complete alone waits out its
# timeout on a failed Job), 2 after the timeout.
#   sh docs/recipes/k8s-wait.sh JOB [TIMEOUT_SECONDS, default 86400]
set -eu
job=$1
left=${2:-86400}
while [ "$left" -gt 0 ]; do
	done=$(kubectl get job "$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type}{" "}{end}')
	case " $done " in
	*" Complete "*) echo "job/$job complete"; exit 0 ;;
	*" Failed "*)
		echo "job/$job failed:" >&2
		kubectl get job "$job" -o jsonpath='{range .status.conditions[*]}{.type}: {.reason} {.message}{"\n"}{end}' >&2
		exit 1 ;;
	esac
	sleep 15
	left=$((left - 15))
done
echo "job/$job still running after the timeout" >&2
exit 2
