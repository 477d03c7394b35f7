#!/usr/bin/env bash
# device_stays.sh <device> <command...>
# Runs the command, then fails (status 99) if <device> is no longer a character device (a rename
# over it would have turned it into a regular file); otherwise exits with the command's status.
device=$1
shift
"$@"
status=$?
if [[ ! -c "$device" ]]; then
  echo "device_stays: $device is no longer a character device" >&2
  exit 99
fi
exit $status
