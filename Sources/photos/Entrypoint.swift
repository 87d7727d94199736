import PhotosCLI

@main
struct Entrypoint {
    static func main() async {
        if EarlyCommands.handle(Array(CommandLine.arguments.dropFirst())) { return }
        await PhotosCommand.runAndExit()
    }
}
