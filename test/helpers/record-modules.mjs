// Loaded before the tool (`node --import`, test/e2e/node.test.ts): writes the built-in modules
// Node had loaded before it ran and those loaded after, to the file PI_SESSION_TEST_MODULES names.
// (It imports nothing: an ES import of `node:fs` would load `fs.promises` and readline itself.)
const before = [...process.moduleLoadList];
const seen = new Set(before);
process.on("exit", () => {
  const { writeFileSync } = process.getBuiltinModule("node:fs");
  writeFileSync(process.env.PI_SESSION_TEST_MODULES, JSON.stringify({ before, after: process.moduleLoadList.filter((m) => !seen.has(m)) }));
});
