#!/bin/sh
# Forwards an aggctl event to your phone through ntfy (https://ntfy.sh or your own server).
#   aggctl check --notify command:/path/to/ntfy.sh
# aggctl runs this without a shell of its own: the event arrives as JSON on stdin and in AGGCTL_EVENT_*
# variables. Text from records is only ever data here: it is quoted, never evaluated.
# Exit 0 when delivered; anything else makes aggctl retry (4 times now, then on its next run).
set -eu
topic="${NTFY_TOPIC:?set NTFY_TOPIC, e.g. in the systemd unit}"
server="${NTFY_SERVER:-https://ntfy.sh}"
priority=default
[ "$AGGCTL_EVENT_KIND" = depleted ] && priority=high
# The event id lets the receiving side drop a repeat: aggctl may deliver an event twice after a crash.
exec curl --fail --silent --show-error --max-time 20 \
  --header "Title: $AGGCTL_EVENT_TITLE" \
  --header "Priority: $priority" \
  --header "X-Aggctl-Event: $AGGCTL_EVENT_ID" \
  --data "$AGGCTL_EVENT_BODY" \
  "$server/$topic"
