// `npm run realkube:build [NAME...]`: builds the real Kubernetes binaries that
// are missing from the cache (all of them without names) and reuses the rest.
// Exits non-zero when any cannot be built: the tests that need them must fail,
// not skip.
import { binaryNames, ensureBinary, type BinaryName } from "../tools/realkube/binaries";

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(binaryNames as string[]).includes(name));
if (unknown.length > 0) {
  console.error(`realkube:build: unknown binary ${unknown.join(", ")}; known: ${binaryNames.join(", ")}`);
  process.exit(2);
}

const wanted = asked.length > 0 ? (asked as BinaryName[]) : binaryNames;
const failures: string[] = [];
for (const name of wanted) {
  try {
    const result = ensureBinary(name, (line) => console.log(line));
    console.log(result.seconds === null ? `realkube: ${name} cached at ${result.path}` : `realkube: built ${name} in ${result.seconds.toFixed(0)} s -> ${result.path}`);
  } catch (error) {
    console.error((error as Error).message);
    failures.push(name);
  }
}
if (failures.length > 0) {
  console.error(`realkube: could not build ${failures.join(", ")}`);
  process.exit(1);
}
