// Package policy evaluates Rego rules over drvcheck's input document. It
// compiles the built-in rules embedded from rego/ together with the user's
// own (--policy) and data (--data), prepares one query for the whole run, and
// returns findings in one shape (Finding). Compile and runtime errors come
// back as one line naming the module and the line.
package policy
