package view

// WriteReportBudget is WriteReport with another size budget, for a test
// of what a page over it does.
var WriteReportBudget = writeReport
