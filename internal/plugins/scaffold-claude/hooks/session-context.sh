#!/usr/bin/env bash
# SessionStart handler: plain text on stdout becomes context for the model.
branch=$(git -C "${CLAUDE_PROJECT_DIR:-.}" branch --show-current 2>/dev/null)
echo "{{NAME}} is active${branch:+ on branch $branch}."
