/**
 * The reference set `artifact gc` trusts; the scan lives in `state/` so the
 * runtime's store-full gc uses the same one.
 */
export { collectReferences, scanReferencedHandles, type ReferenceScan } from "../../state/reference-scan.js";
