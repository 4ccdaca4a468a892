package replay

func dropStaleOpenAIReasoning(in []Message, before *float64, log *changeLog) []Message { return in }

func normalizeOpenAIResponsesToolCallIDs(in []Message, log *changeLog) []Message { return in }

func validateAnthropicTurns96(in []Message, merge bool, log *changeLog) []Message {
	return validateAnthropicTurns(in, log)
}

func filterHeartbeatTranscriptArtifacts(in []Message, log *changeLog) []Message {
	return filterHeartbeatPairs(in, log)
}
