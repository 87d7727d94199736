import PhotosCLI

@main
struct Entrypoint {
    static func main() async {
        await PhotosCommand.runAndExit()
    }
}
