package nodefacts

import "regexp"

// A part of a tag may hold the OCI tag grammar's characters
// (imageref.ValidTag) but never a space, "/", ":" or "@", which would make
// another reference or none (" 550" from a padded label, say).
var tagPart = regexp.MustCompile(`^[a-zA-Z0-9._-]+$`)
