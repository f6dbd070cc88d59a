/** The one formatter configuration; `prettier --check .` runs in the lint step. */
export default {
  printWidth: 140,
  trailingComma: "all",
};
