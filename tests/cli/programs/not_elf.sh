#!/bin/sh
# A script: executable, but not an ELF file.
echo hello
