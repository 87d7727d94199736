import PhotosCore
import Testing

@testable import CommonsProvider

/// extmetadata's HTML as users read it: text only, never markup.
@Suite struct CommonsTextTests {
    @Test func linksAndSpansBecomeTheirText() {
        let artist = #"<bdi><a href="https://www.wikidata.org/wiki/Q28147777" class="extiw">Diego Delso</a>"# + "\n</bdi>"
        #expect(HTMLText.plain(artist) == "Diego Delso")
        let credit = #"<span class="int-own-work" lang="en">Own work</span>"#
        #expect(HTMLText.plain(credit) == "Own work")
    }

    @Test func tagsSeparateWordsAndWhitespaceCollapses() {
        #expect(HTMLText.plain("first<br>second</p><p>third\n\n\t fourth") == "first second third fourth")
        #expect(HTMLText.plain("See <a href=\"x\">Wikipedia</a>. B<b>old</b> <!-- a > b -->end") == "See Wikipedia. Bold end")
        #expect(HTMLText.plain("c.&nbsp;1910") == "c. 1910")
    }

    @Test func scriptsAndStylesDisappearWithTheirContent() {
        let html = "<script>document.title='x'</script>Eve<style>p { color: red }</style> wrote<SCRIPT type=x>alert(1)</SCRIPT> this"
        #expect(HTMLText.plain(html) == "Eve wrote this")
        #expect(HTMLText.plain("before<script>never closed") == "before")
    }

    @Test func entitiesAreDecodedAfterTagsSoTheyNeverBecomeMarkup() {
        #expect(HTMLText.plain("&lt;b&gt;bold&lt;/b&gt; &amp; more") == "<b>bold</b> & more")
        #expect(HTMLText.plain("caf&eacute; &#233; &#xE9; &#x1F415;") == "café é é 🐕")
        #expect(HTMLText.plain("&unknown; &#0; & alone") == "&unknown; &#0; & alone")
        // What a terminal would act on survives as a character, for the terminal layer to make visible.
        #expect(HTMLText.plain("Eve &#x1b;[2J").unicodeScalars.contains("\u{1B}"))
    }

    @Test func aLoneLessThanIsText() {
        #expect(HTMLText.plain("a < b and 3<4") == "a < b and 3<4")
        #expect(HTMLText.plain("cut <a href=\"x") == "cut")
    }
}
