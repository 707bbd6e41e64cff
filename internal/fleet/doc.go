// Package fleet is what one run tells of its cluster (Cluster, printed as
// -o json's "cluster"), and the merge of several runs' JSON results into
// one fleet result (report merge): each finding tagged with its cluster,
// the summaries added up, and the clusters listed for the fleet's rules.
package fleet
