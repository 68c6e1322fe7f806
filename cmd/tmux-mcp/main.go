// Command tmux-mcp serves tmux to AI agents over the Model Context Protocol.
package main

func main() {}
