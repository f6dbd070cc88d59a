#!/bin/sh
# Package installs in image builds must not try to start services.
exit 101
