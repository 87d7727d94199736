import ArgumentParser
import Foundation
import Testing

@testable import PhotosCLI

/// How an error that ends a command is said and which code it leaves with.
struct CommandRuntimeTests {
    /// A file Foundation could not write (the private folder a viewer's image falls back to)
    /// is said in the system's words with its path, and leaves with 74 as any output photos
    /// could not write: it was an NSError dump and exit 1, which DESIGN does not list.
    @Test func aFileErrorOfFoundationsIsAnOutputError() {
        let denied = CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: "/tmp/photos-0/x.jpg", NSUnderlyingErrorKey: POSIXError(.EACCES)])
        #expect(CommandRuntime.fileProblem(denied) == "/tmp/photos-0/x.jpg: Permission denied")
        #expect((CommandRuntime.report(denied) as? ExitCode)?.rawValue == 74)
        #expect((CommandRuntime.report(POSIXError(.ENOSPC)) as? ExitCode)?.rawValue == 74)
        // Not every system error is output that could not be written: too many open files is not.
        #expect((CommandRuntime.report(POSIXError(.EMFILE)) as? ExitCode)?.rawValue != 74)
        let unreadable = CocoaError(.fileReadNoPermission, userInfo: [NSFilePathErrorKey: "/x", NSUnderlyingErrorKey: POSIXError(.EACCES)])
        #expect((CommandRuntime.report(unreadable) as? ExitCode)?.rawValue != 74)
    }
}
