package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class IpLiteralsTest {

    @Test
    void dottedQuadsAreTheirFourBytes() {
        assertThat(IpLiterals.parse("203.0.113.9")).map(InetAddress::getAddress)
                .hasValue(new byte[] {(byte) 203, 0, 113, 9});
        assertThat(IpLiterals.parse(" 0.0.0.0 ")).map(InetAddress::getHostAddress).hasValue("0.0.0.0");
        assertThat(IpLiterals.parse("255.255.255.255")).map(InetAddress::getHostAddress).hasValue("255.255.255.255");
        assertThat(IpLiterals.parse("010.001.0.7")).map(InetAddress::getHostAddress).hasValue("10.1.0.7");
    }

    @Test
    void anythingElseThatIsNotAnIpv6LiteralIsNoAddress() {
        for (String notOne : new String[] {"", "1.2.3", "1.2.3.4.5", "1..3.4", ".1.2.3", "1.2.3.", "256.1.1.1",
                "1.2.3.256", "1000.1.1.1", "0001.1.1.1", "1.2.3.4a", "a.b.c.d", "localhost", "1.2.3.\u0664",
                "1,2.3.4"}) {
            assertThat(IpLiterals.parse(notOne)).as(notOne).isEmpty();
        }
    }

    @Test
    void ipv6LiteralsWithBracketsAndZonesStillParse() {
        assertThat(IpLiterals.parse("[2001:db8::17]")).map(InetAddress::getHostAddress)
                .hasValue("2001:db8:0:0:0:0:0:17");
        assertThat(IpLiterals.parse("fe80::1%eth0")).map(InetAddress::getHostAddress).hasValue("fe80:0:0:0:0:0:0:1");
        assertThat(IpLiterals.parse("::ffff:192.0.2.1")).map(InetAddress::getHostAddress).hasValue("192.0.2.1");
    }
}
