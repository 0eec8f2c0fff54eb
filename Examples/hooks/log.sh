#!/bin/sh
# Appends every aggctl event (one JSON line, as received on stdin) to a log file.
#   aggctl check --notify command:/path/to/log.sh
cat >> "${AGGCTL_EVENT_LOG:-$HOME/.local/state/aggctl/events.log}"
