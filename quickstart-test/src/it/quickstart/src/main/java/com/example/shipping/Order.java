package com.example.shipping;

public record Order(String id) {
}
