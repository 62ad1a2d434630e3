// Writes docs/integrations.md from docs/host-capability-matrix.json (validated first).
// Run after `npm run build`: node dist/scripts/generate-integrations-doc.js [repoRoot]
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HostCapabilityMatrixSchema, renderIntegrationsDoc } from "../src/integrations/capability-matrix.js";

const root = process.argv[2] ?? process.cwd();
const matrix = HostCapabilityMatrixSchema.parse(JSON.parse(readFileSync(join(root, "docs/host-capability-matrix.json"), "utf8")));
writeFileSync(join(root, "docs/integrations.md"), renderIntegrationsDoc(matrix), "utf8");
process.stdout.write("wrote docs/integrations.md\n");
