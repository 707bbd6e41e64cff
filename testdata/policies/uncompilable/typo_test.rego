package drvcheck.rules.typo_test

import data.drvcheck.lib

# lib.findings is not a function (lib.finding is): a compile error, exit 2.
test_typo if {
	f := lib.findings({"id": "X"}, {}, {})
	f.rule == "X"
}
